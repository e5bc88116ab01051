#!/usr/bin/env bash
# Sets up and runs every test: the whole Meson suite (unit, black-box C,
# layout against mingw-w64, samples, fuzz, abi, conformance, bench-smoke: the
# benchmark programs run once with tiny counts), a release build, the same
# suite under AddressSanitizer + UndefinedBehaviorSanitizer (built with clang,
# with the libFuzzer targets), the threaded unit
# suites under ThreadSanitizer, the language bindings, and the Windows DLL
# under wine. Exits non-zero if anything fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh test || exit 1

failed=()
runs=0
# Wall time per stage, printed at the end (CI must finish within 40 minutes).
timings=""
stage_start=$SECONDS
stage_done() { timings+=$'\n'"  $1: $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }
run_suite() { # name, build dir, meson test options, meson setup options...
  local name=$1 dir=$2 test_opts=$3; shift 3
  runs=$((runs + 1))
  echo "=== $name"
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; failed+=("$name (setup)"); return; }
  fi
  # A stage that runs one suite builds only what that suite runs.
  local targets=()
  if [[ $test_opts =~ --suite\ ([a-z0-9-]+) ]]; then
    mapfile -t targets < <(python3 scripts/suite-targets.py "$dir" "${BASH_REMATCH[1]}") ||
      { failed+=("$name (targets)"); return; }
  fi
  ninja -C "$dir" "${targets[@]}" >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log"; failed+=("$name (build)"); return; }
  # shellcheck disable=SC2086 # test_opts holds several words on purpose
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 $test_opts || failed+=("$name")
}

run_suite "tests" build-test "" -Dfuzz_seconds=20
stage_done "tests"
# Packagers build -Dbuildtype=release: the library, tools and benchmarks
# must compile there (warnings are errors) too; the tests are built and run
# in the other builds.
echo "=== release build"
runs=$((runs + 1))
if ! { [ -f build-release/build.ninja ] || meson setup build-release -Dbuildtype=release -Dtests=false >build-release.setup.log 2>&1; }; then
  cat build-release.setup.log; failed+=("release build (setup)")
elif ! ninja -C build-release >build-release.build.log 2>&1; then
  tail -50 build-release.build.log; failed+=("release build")
else
  echo "built at -O3 ($(grep -c "warning:" build-release.build.log) warnings left as warnings, see meson.build)"
fi
stage_done "release build"

# The sanitizer stages run the cross-process soaks (random kills, a
# scribbled region) for 20 s each instead of 60: rounds there are 3-5 times
# slower, and the plain stage soaks the full minute.
export CROSSPROC_SOAK_SECONDS=20
# Built with clang: it compiles the sanitized library three to four times
# faster than GCC, and its build also holds the libFuzzer targets (their
# coverage counters in all its code), run there for fuzz_seconds each. The
# plain stage's GCC covers the GCC-only gates (abi-baseline).
CC=clang-14 CXX=clang++-14 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  run_suite "tests under ASan+UBSan (clang)" build-asan "" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbench=disabled -Dfuzz_seconds=20 -Dcpp_args=-fno-sanitize-recover=all -Dc_args=-fno-sanitize-recover=all
stage_done "ASan+UBSan"

# Clang again, for its build time (its static runtime defines operator new:
# tests/format/reader_memory_test.cpp counts by the runtime's hooks there).
CC=clang-14 CXX=clang++-14 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  run_suite "unit tests under ThreadSanitizer (clang)" build-tsan "--suite unit" -Db_sanitize=thread -Db_lundef=false \
    -Dbench=disabled \
    -Dcpp_args=-fno-sanitize-recover=all -Dc_args=-fno-sanitize-recover=all
stage_done "TSan"
unset CROSSPROC_SOAK_SECONDS

# The Linux build of the tests stage serves the trace comparison, and the
# Windows stage's DLL the bindings' win-x64 package: each is built once.
echo "=== Windows: the DLL and the tests under wine, the i686 build"
runs=$((runs + 1))
bash scripts/windows-tests.sh --install --linux-build "$root/build-test" || failed+=("windows")
stage_done "windows"

echo "=== language bindings (Python, C#, Rust) and the conformance suite"
runs=$((runs + 1))
OPENETW_BINDINGS_BUILD="$root/build-test" OPENETW_BINDINGS_WIN64="$root/build-win64" \
  bash scripts/bindings-tests.sh || failed+=("bindings")
stage_done "bindings"
echo
echo "stage times:$timings (total $SECONDS s)"
echo "test runs: $((runs - ${#failed[@]})) passed, ${#failed[@]} failed"
if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
