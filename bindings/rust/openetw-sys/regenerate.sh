#!/usr/bin/env bash
# Regenerates src/bindings.rs from wrapper.h with bindgen, or with --check
# verifies that regenerating gives no diff (CI runs the check).
# The output depends on the tools, so they are pinned: Debian 12's bindgen
# 0.60.1 (libclang 14) and rustfmt (bindgen formats its output with it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
include=$(cd "$here/../../../include" && pwd)
want_bindgen="bindgen 0.60.1"

command -v bindgen >/dev/null || { echo "bindgen not found (apt-get install bindgen)" >&2; exit 2; }
command -v rustfmt >/dev/null || { echo "rustfmt not found (rustup component add rustfmt)" >&2; exit 2; }
have_bindgen=$(bindgen --version)
[ "$have_bindgen" = "$want_bindgen" ] ||
  echo "warning: $have_bindgen, but src/bindings.rs comes from $want_bindgen: expect a diff" >&2

generate() { # output file
  # Only the library's own names; core types so the crate is no_std.
  bindgen "$here/wrapper.h" \
    --allowlist-function 'etw_.*' --allowlist-type 'etw_.*' --allowlist-var '(ETW|OPENETW)_.*' \
    --use-core --ctypes-prefix core::ffi --size_t-is-usize \
    --output "$1" -- -I"$include"
}

case "${1:-}" in
  --check)
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    generate "$tmp"
    if ! diff -u "$here/src/bindings.rs" "$tmp"; then
      echo "src/bindings.rs is stale: run bindings/rust/openetw-sys/regenerate.sh ($have_bindgen, $(rustfmt --version))" >&2
      exit 1
    fi
    echo "src/bindings.rs is up to date"
    ;;
  "")
    generate "$here/src/bindings.rs"
    echo "wrote src/bindings.rs"
    ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
