#!/bin/sh
# abi/update.sh [BUILDDIR]
#
# Brings abi/ in line with include/openetw/. Run it before every commit that
# changes a public header or abi/openetw.map, review `git diff abi/`, and
# commit abi/ together with include/ (see abi/README.md, "Updating").
#
#   1. adds every newly declared ETW_API function to the open (last) version
#      node of abi/openetw.map and rewrites abi/symbols.txt from the map;
#      refuses if the map names a function no header declares
#   2. builds the library in BUILDDIR (default: build; debug info required)
#   3. regenerates the libabigail baseline abi/openetw.abi (x86_64 Linux)
#   4. regenerates abi/layout.txt: [x86_64] with the native compiler, [x86]
#      with i686-w64-mingw32-gcc-posix, and checks that x86_64-w64-mingw32
#      gives the same layouts as x86_64 Linux
#   5. runs `meson test --suite abi`
set -eu

cd "$(dirname "$0")/.."
BUILD=${1:-build}
PY=${PYTHON:-python3}
CC_NATIVE=${CC:-cc}

step() { printf '\n== %s\n' "$*"; }

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "abi/update.sh: the baseline is defined on x86_64 Linux; run it there." >&2
  exit 2
fi
for tool in abidw abidiff readelf nm meson ninja; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "abi/update.sh: $tool not found (Debian: apt-get install abigail-tools binutils meson ninja-build)" >&2
    exit 2
  }
done

step "1/5 version script and symbol list"
$PY abi/abi_check.py sync-map

step "2/5 build ($BUILD)"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD"
fi
buildtype=$(meson introspect --buildoptions "$BUILD" | $PY -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))')
case "$buildtype" in
  debug|debugoptimized) ;;
  *) echo "abi/update.sh: $BUILD has buildtype $buildtype; the baseline needs debug info" \
          "(debugoptimized, the default)." >&2
     exit 2 ;;
esac
ninja -C "$BUILD"
abi=$(sed -n 's/^#define OPENETW_ABI_VERSION *\([0-9][0-9]*\).*/\1/p' include/openetw/version.h)
LIB="$BUILD/libopenetw.so.$abi"
[ -f "$LIB" ] || { echo "abi/update.sh: $LIB not built" >&2; exit 1; }

step "3/5 libabigail baseline"
$PY abi/abi_check.py abidw --lib "$LIB"

step "4/5 struct layouts"
$PY abi/abi_check.py dump-layout --section x86_64 --cc "$CC_NATIVE"
if command -v i686-w64-mingw32-gcc-posix >/dev/null 2>&1; then
  $PY abi/abi_check.py dump-layout --section x86 --cc i686-w64-mingw32-gcc-posix
else
  echo "warning: i686-w64-mingw32-gcc-posix not found: the [x86] section of abi/layout.txt is" \
       "not regenerated (Debian: apt-get install g++-mingw-w64-i686-posix)" >&2
fi
if command -v x86_64-w64-mingw32-gcc-posix >/dev/null 2>&1; then
  # Windows x86_64 must have the same layouts as Linux x86_64.
  $PY abi/abi_check.py layout --section x86_64 --cc x86_64-w64-mingw32-gcc-posix
fi

step "5/5 meson test --suite abi"
meson test -C "$BUILD" --suite abi --print-errorlogs

step "done; review and commit with include/:"
git status --short abi/ 2>/dev/null || true
