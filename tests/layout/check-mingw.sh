#!/bin/sh
# Compiles mingw_layout.cpp for each mingw-w64 target given; a wrong size or
# offset is a static_assert failure, so success means every layout matches.
# usage: check-mingw.sh SOURCE INCLUDE_DIR COMPILER...
set -eu
src=$1; inc=$2; shift 2
for cxx in "$@"; do
    echo "== $cxx"
    "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I "$inc" "$src"
done
echo "layouts match mingw-w64 for: $*"
