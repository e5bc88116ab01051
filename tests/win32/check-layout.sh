#!/bin/sh
# Compares every size, offset and constant value of the win32 headers with
# mingw-w64's: probe.cpp is compiled to assembly against both header sets for
# each compiler given (and ours with the host compiler, which must match the
# first mingw target), and the measurement lists must be identical.
# usage: check-layout.sh PROBE OUR_WIN32_INCLUDE HOST_CXX MINGW_CXX...
set -eu
probe=$1; ours=$2; host=$3; shift 3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
measure() { # compiler, extra flags..., output
    cxx=$1; out=$2; shift 2
    "$cxx" -std=c++17 -S -o "$dir/probe.s" "$@" "$probe"
    grep -o '@@[^@]*@@' "$dir/probe.s" > "$out"
    test -s "$out"
}
first=""
for cxx in "$@"; do
    measure "$cxx" "$dir/theirs" -Wno-pragmas
    measure "$cxx" "$dir/ours" -I "$ours"
    if ! diff "$dir/theirs" "$dir/ours"; then
        echo "FAIL: $cxx: our headers differ from mingw-w64's (< theirs, > ours)"; exit 1
    fi
    echo "$cxx: $(wc -l < "$dir/ours") measurements match"
    [ -n "$first" ] || cp "$dir/theirs" "$dir/first"; first=1
done
measure "$host" "$dir/host" -I "$ours" -fshort-wchar
if ! diff "$dir/first" "$dir/host"; then
    echo "FAIL: the host build of our headers differs from $1 (< mingw, > host)"; exit 1
fi
echo "host: matches $1"
