#!/usr/bin/env bash
# Builds the libFuzzer targets with clang: the library sources once (with
# fuzzer coverage, ASan and UBSan), then one program per target.
# usage: build.sh CLANGXX SOURCE_ROOT OUT_DIR TARGET_OUTPUT... -- LIBRARY_SOURCES...
# Each TARGET_OUTPUT is OUT_DIR/NAME, built from NAME's source NAME.cpp beside
# this script with the suffix "_libfuzzer" dropped from NAME.
set -euo pipefail
cxx=$1 root=$2 out=$3; shift 3
targets=()
while [ "$1" != "--" ]; do targets+=("$1"); shift; done
shift
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -I"$root/include" -I"$root/src" -I"$root/tools/etwctl" -DOPENETW_BUILDING -DOPENETW_STATIC)
obj="$out/libfuzzer-objects"
rm -rf "$obj" && mkdir -p "$obj" # objects of sources no longer listed must not be linked
export cxx obj; export flags_str="${flags[*]}"
# Every source again each time (ninja reruns this when a source changes; a
# header change must recompile too). Two at a time: the machines are shared.
printf '%s\n' "$@" | xargs -P 2 -I{} bash -c \
  'src="{}"; o="$obj/$(echo "$src" | sed "s|^\(\.\./\)*||; s|/|_|g").o"; $cxx $flags_str -c "$src" -o "$o"'
here=$(cd "$(dirname "$0")" && pwd)
for t in "${targets[@]}"; do
  name=$(basename "$t"); name=${name%_libfuzzer}
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/${name}_target.cpp" "$obj"/*.o -o "$t" -lpthread -lrt
done
