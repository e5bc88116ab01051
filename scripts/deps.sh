#!/usr/bin/env bash
# Installs the Debian packages a job needs, only those missing (fast when
# everything is present). usage: scripts/deps.sh build|test|bindings
set -euo pipefail
build_pkgs=(meson ninja-build pkg-config g++ libgtest-dev libnats-dev
            protobuf-compiler libprotobuf-dev libcurl4-openssl-dev)  # src/otlp (etwdump --otlp)
test_pkgs=("${build_pkgs[@]}" nats-server clang-format-14 g++-mingw-w64-x86-64-posix g++-mingw-w64-i686-posix abigail-tools swig bindgen python3-dev python3-pytest
           clang-14 libfuzzer-14-dev libclang-rt-14-dev  # tests/fuzz/libfuzzer
           python3-pip python3-venv python3-setuptools
           python3-protobuf  # tests/otlp: the receiver decodes with the generated Python classes
           openssl ca-certificates  # tests/otlp: the https receiver's certificates
           gdb)  # tests/system: the stacks of a writer that stays inside a write
bindings_pkgs=("${build_pkgs[@]}" swig bindgen python3-dev python3-pytest python3-pip python3-venv python3-setuptools
               g++-aarch64-linux-gnu g++-mingw-w64-x86-64-posix
               nats-server)  # the stream tests and examples of every binding
case "${1:-build}" in
  build) want=("${build_pkgs[@]}") ;;
  test) want=("${test_pkgs[@]}") ;;
  bindings) want=("${bindings_pkgs[@]}") ;;
  *) echo "usage: $0 build|test|bindings" >&2; exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
