#!/usr/bin/env bash
# Sets up and runs every test: the whole Meson suite (unit, black-box C,
# layout against mingw-w64, samples, fuzz), then the same suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer. Exits non-zero if anything fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh test || exit 1

failed=()
run_suite() { # name, build dir, meson setup options...
  local name=$1 dir=$2; shift 2
  echo "=== $name"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; failed+=("$name (setup)"); return; }
  fi
  ninja -C "$dir" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log"; failed+=("$name (build)"); return; }
  meson test -C "$dir" --print-errorlogs --num-processes 2 || failed+=("$name")
}

run_suite "tests" build-test -Dfuzz_seconds=20
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  run_suite "tests under ASan+UBSan" build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dfuzz_seconds=20 -Dcpp_args=-fno-sanitize-recover=all -Dc_args=-fno-sanitize-recover=all

echo "=== language bindings (Python, C#, Rust) and the conformance suite"
bash scripts/bindings-tests.sh || failed+=("bindings")

if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test runs passed"
