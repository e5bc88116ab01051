#!/bin/sh
# scripts/windows-tests.sh - the Windows build of OpenETW, tested under wine.
#
#   scripts/windows-tests.sh [--install] [--no-i686] [--linux-build DIR] [-- MESON_TEST_ARGS...]
#
# 1. (--install) apt-get installs wine (64-bit), the mingw-w64 posix cross
#    compilers and abigail-tools (Debian 12 package names).
# 2. Cross-builds with cross/x86_64-w64-mingw32.txt into build-win64/:
#    openetw-1.dll, its import library openetw.dll.a, the tools and every
#    test program.
# 3. Runs `meson test` in that build: the cross file's exe_wrapper is wine,
#    so every test the tree defines (unit, c, abi, ...) runs under wine
#    (WINEDEBUG=-all) with no list kept here; the abi suite checks the DLL's
#    export table against abi/symbols.txt and that it needs no C++ runtime DLL.
# 4. Trace comparison: tests/abi/trace_scenario writes the same scenario on
#    Linux (the native build, --linux-build, default build/) and under wine;
#    each build dumps both traces; the four dumps must be identical.
# 5. (unless --no-i686) cross-builds cross/i686-w64-mingw32.txt into
#    build-win32/ (compile only: no 32-bit wine): the DLL, the tools and the
#    C test programs (-Dgtest=disabled: the GoogleTest programs, which take
#    most of the build time, are built and run by step 2 and 3), and runs its
#    abi suite (the DLL exports, 32-bit struct layouts, header compile tests).
#
# Environment: OPENETW_WIN_BUILDROOT (default: the source root) holds the
# build directories and the wine prefix (build-wine/); WINEPREFIX overrides
# the latter. Exit status: 0 when every step passed.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILDROOT=${OPENETW_WIN_BUILDROOT:-$ROOT}
WIN64="$BUILDROOT/build-win64"
WIN32="$BUILDROOT/build-win32"
LINUX_BUILD="$ROOT/build"
INSTALL=0
I686=1
while [ $# -gt 0 ]; do
  case "$1" in
    --install) INSTALL=1 ;;
    --no-i686) I686=0 ;;
    --linux-build) shift; LINUX_BUILD=$1 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -u$/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "windows-tests.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

export WINEDEBUG=-all
export WINEPREFIX=${WINEPREFIX:-$BUILDROOT/build-wine}
export WINEDLLOVERRIDES="mscoree,mshtml="   # no Mono/Gecko install prompts
export WINEARCH=win64

failures=""
fail() { failures="$failures\n  - $*"; echo "FAILED: $*"; }
now() { date +%s; }
timings=""
timed() { # timed LABEL START
  timings="$timings\n  $1: $(( $(now) - $2 )) s"
}
section() { printf '\n==== %s\n' "$*"; }

# ---- 1. tools ----
if [ "$INSTALL" = 1 ]; then
  section "apt-get install"
  t=$(now)
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    wine wine64 g++-mingw-w64-x86-64-posix g++-mingw-w64-i686-posix abigail-tools \
    || fail "apt-get install"
  timed "apt-get install (wine, mingw-w64, abigail-tools)" "$t"
fi
for tool in wine x86_64-w64-mingw32-g++-posix meson ninja python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "windows-tests.sh: $tool not found (try --install)" >&2; exit 2; }
done

section "wine prefix $WINEPREFIX"
t=$(now)
mkdir -p "$WINEPREFIX"
wine cmd /c exit >/dev/null 2>&1 || true   # creates the prefix on first use
timed "wine prefix" "$t"

# ---- 2. x86_64 cross build ----
section "x86_64-w64-mingw32 cross build ($WIN64)"
t=$(now)
if [ -f "$WIN64/build.ninja" ]; then
  meson setup --reconfigure --cross-file "$ROOT/cross/x86_64-w64-mingw32.txt" "$WIN64" "$ROOT" >/dev/null \
    || fail "meson setup (x86_64)"
else
  meson setup --cross-file "$ROOT/cross/x86_64-w64-mingw32.txt" "$WIN64" "$ROOT" || fail "meson setup (x86_64)"
fi
# -k 0: build everything that builds, so one broken program does not hide
# the results of the others (a program that did not build fails its test).
ninja -C "$WIN64" -k 0 || fail "x86_64 cross build (see the errors above)"
timed "x86_64 cross build" "$t"
if [ -f "$WIN64/openetw-1.dll" ]; then
  ls -l "$WIN64/openetw-1.dll" "$WIN64/openetw.dll.a"
  x86_64-w64-mingw32-objdump -p "$WIN64/openetw-1.dll" | sed -n 's/^\tDLL Name: /  imports /p'
else
  fail "openetw-1.dll was not built"
fi

# Runs meson test in build dir $1 (further arguments go to meson test). A
# test whose program did not build is reported as failed and left out, since
# meson test refuses to start when any program is missing.
run_tests() {
  dir=$1; shift
  missing=$(meson introspect --tests "$dir" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["cmd"] and not os.path.exists(t["cmd"][0]):
        print(t["name"])')
  if [ -n "$missing" ]; then
    fail "not built, so not run: $(echo $missing)"
    names=$(meson introspect --tests "$dir" | python3 -c '
import json, os, sys
print(" ".join(t["name"] for t in json.load(sys.stdin) if t["cmd"] and os.path.exists(t["cmd"][0])))')
    case " $* " in
      *" --suite "*) meson test -C "$dir" --no-rebuild --print-errorlogs "$@" ;;  # a suite: as asked
      *) meson test -C "$dir" --no-rebuild --print-errorlogs "$@" $names ;;
    esac
  else
    meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
  fi
}

# ---- 3. every test under wine ----
section "meson test under wine ($WIN64)"
t=$(now)
run_tests "$WIN64" "$@" || fail "meson test under wine"
timed "meson test under wine" "$t"

# ---- 4. the same trace on Linux and under wine ----
section "trace comparison: Linux ($LINUX_BUILD) vs wine"
t=$(now)
CMP="$BUILDROOT/build-win64/trace-compare"
rm -rf "$CMP" && mkdir -p "$CMP"
LINUX_EXE="$LINUX_BUILD/tests/abi/trace_scenario"
WINE_EXE="$WIN64/tests/abi/trace_scenario.exe"
if [ ! -f "$LINUX_BUILD/build.ninja" ]; then
  meson setup "$LINUX_BUILD" "$ROOT" >/dev/null || fail "meson setup (Linux)"
fi
ninja -C "$LINUX_BUILD" tests/abi/trace_scenario >/dev/null || fail "building the Linux trace_scenario"
if [ -x "$LINUX_EXE" ] && [ -f "$WINE_EXE" ]; then
  # the DLL is found through WINEPATH, as meson test does it
  export WINEPATH="$(winepath -w "$WIN64" 2>/dev/null || echo "Z:$WIN64" | tr / '\\')"
  # the same file name in two folders: the name is recorded in the file
  mkdir -p "$CMP/linux" "$CMP/wine"
  ( cd "$CMP" &&
    # its own session namespace: a session host other programs left running
    # (of another build, say) has no say in the comparison
    (cd linux && OPENETW_REGISTRY=none "$LINUX_EXE" write scenario.etl) &&
    (cd wine && wine "$WINE_EXE" write scenario.etl) &&
    "$LINUX_EXE" dump linux/scenario.etl > linux-reads-linux.txt &&
    "$LINUX_EXE" dump wine/scenario.etl > linux-reads-wine.txt &&
    wine "$WINE_EXE" dump linux/scenario.etl | tr -d '\r' > wine-reads-linux.txt &&
    wine "$WINE_EXE" dump wine/scenario.etl | tr -d '\r' > wine-reads-wine.txt &&
    "$LINUX_EXE" check wine/scenario.etl && wine "$WINE_EXE" check linux/scenario.etl ) \
    || fail "trace scenario (write/dump/check) failed"
  same=1
  for f in linux-reads-wine wine-reads-linux wine-reads-wine; do
    if ! cmp -s "$CMP/linux-reads-linux.txt" "$CMP/$f.txt"; then
      same=0
      echo "differs: $f.txt vs linux-reads-linux.txt"
      diff "$CMP/linux-reads-linux.txt" "$CMP/$f.txt" | head -20
    fi
  done
  if [ "$same" = 1 ] && [ -s "$CMP/linux-reads-linux.txt" ]; then
    echo "OK: the Linux and wine traces read back with the same records, by either build" \
         "($(grep -c '^event' "$CMP/linux-reads-linux.txt") events; dumps in $CMP)"
  else
    fail "the Linux and wine traces differ (dumps in $CMP)"
  fi
else
  fail "trace_scenario not built for Linux ($LINUX_EXE) or Windows ($WINE_EXE)"
fi
timed "trace comparison" "$t"

# ---- 5. i686: compiles, and its abi suite ----
if [ "$I686" = 1 ]; then
  section "i686-w64-mingw32 cross build ($WIN32, compile only)"
  t=$(now)
  if command -v i686-w64-mingw32-g++-posix >/dev/null 2>&1; then
    if [ -f "$WIN32/build.ninja" ]; then
      meson setup --reconfigure -Dgtest=disabled --cross-file "$ROOT/cross/i686-w64-mingw32.txt" "$WIN32" "$ROOT" >/dev/null \
        || fail "meson setup (i686)"
    else
      meson setup -Dgtest=disabled --cross-file "$ROOT/cross/i686-w64-mingw32.txt" "$WIN32" "$ROOT" \
        || fail "meson setup (i686)"
    fi
    ninja -C "$WIN32" -k 0 || fail "i686 cross build"
    run_tests "$WIN32" --suite abi || fail "i686 abi suite"
  else
    fail "i686-w64-mingw32-g++-posix not found (try --install)"
  fi
  timed "i686 cross build + abi suite" "$t"
fi

wineserver -k >/dev/null 2>&1 || true   # the wineserver of our prefix

section "summary"
printf "timings:$timings\n"
if [ -n "$failures" ]; then
  printf "windows-tests.sh: FAILED:$failures\n"
  exit 1
fi
echo "windows-tests.sh: all passed"
