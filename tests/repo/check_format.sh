#!/usr/bin/env bash
# Fails on every C/C++ file of src/, tools/, tests/ and bench/src that
# clang-format-14 would change under the repository's .clang-format (the
# house layout, docs/CONVENTIONS.md), naming each. `clang-format-14 -i FILE`
# fixes one. With --self-test it plants a misformatted copy of a file and
# fails unless the check catches it.
# usage: check_format.sh SOURCE_ROOT [--self-test]
set -uo pipefail
root=$1
cf=$(command -v clang-format-14) || { echo "FAIL: clang-format-14 is not installed (scripts/deps.sh test installs it)"; exit 1; }
cd "$root" || exit 1
mapfile -t files < <(find src tools tests bench/src -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) | sort)
if [ "${2:-}" = --self-test ]; then
  tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
  cp .clang-format "$tmp/" && sed 's/^{$/   {/' src/engine/engine.cpp >"$tmp/planted.cpp"
  if "$cf" --dry-run -Werror "$tmp/planted.cpp" >/dev/null 2>&1; then
    echo "FAIL: a misformatted copy of src/engine/engine.cpp passed the check"; exit 1
  fi
  echo "ok: a misformatted file is caught"; exit 0
fi
# One clang-format for all the files (one each took 15-25 s): it names each
# file it would change in its "FILE:LINE:COL: error:" lines.
mapfile -t bad < <("$cf" --dry-run -Werror "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if ((${#bad[@]})); then
  echo "FAIL: clang-format-14 would change ${#bad[@]} file(s) (run clang-format-14 -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "ok: ${#files[@]} files keep the house layout"
