#!/usr/bin/env bash
# Builds the language bindings and runs every binding test:
#   - the conformance scenario (tests/conformance/scenario.txt) through the C,
#     Python, C# and Rust runners: each must pass, all four must print the
#     same lines, and each must fail on a deliberately broken copy;
#   - the Python package pip-installed into a venv (offline, no build isolation;
#     it finds libopenetw through pkg-config, with no LD_LIBRARY_PATH), then
#     pytest, the conformance runner and the examples run from that install;
#   - xunit (C#), cargo test (Rust), the bindgen no-diff check, and a fresh
#     cargo crate with a path dependency found through pkg-config alone;
#   - the NuGet package (version from meson.build) installed into a fresh
#     console project, offline, running the README's C# examples;
#   - the logman workflow across processes in each language (a detached session
#     outlives its starter in the session host, $build/openetw-hostd, named to
#     the tests by OPENETW_HOSTD);
#   - every README example (C++, Python, C#, Rust) runs: the live traces must
#     receive all 100,000 events with the default buffer pool; the fleet
#     examples export to, read back and collect from a real nats-server this
#     script starts (OPENETW_EXAMPLE_NATS_URL, OPENETW_EXAMPLE_NATS_CREDENTIALS).
# Installs missing Debian packages; needs dotnet and cargo on PATH.
# Exits non-zero if anything fails.
#   OPENETW_BINDINGS_DIR  work folder (default: build-bindings in the tree)
#   OPENETW_BINDINGS_BUILD  a Meson build of this tree to use (default: a
#                           -Dtests=false build set up in the work folder)
#   OPENETW_BINDINGS_WIN64  a mingw x86_64 build of this tree for the win-x64
#                           libraries (default: set up in the work folder)
#   OPENETW_NUGET_SOURCE  offline NuGet feed (default: /opt/nuget/packages)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OPENETW_BINDINGS_DIR:-$root/build-bindings}
feed=${OPENETW_NUGET_SOURCE:-/opt/nuget/packages}
python=/usr/bin/python3 # Debian's interpreter: it sees python3-pytest
# Binding tests keep their sessions process-local (as meson test does), so runs
# never meet each other or sessions left by a killed run.
export OPENETW_REGISTRY=none
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
mkdir -p "$out"

# ---- Packages (only the missing ones) and tools ----
bash "$root/scripts/deps.sh" bindings || exit 1
for tool in dotnet cargo; do
  command -v "$tool" >/dev/null || { echo "$tool is not on PATH"; exit 1; }
done
# The stream tests of every binding start real servers: never skipped for want of one.
nats_server=$(PATH=$PATH:/usr/sbin:/usr/local/sbin command -v nats-server) ||
  { echo "nats-server is not installed (scripts/deps.sh bindings installs it)"; exit 1; }

failed=()
step() { # name, command...: runs and times one step, records a failure
  local name=$1 start=$SECONDS; shift
  echo "=== $name"
  if "$@"; then echo "--- $name: ok ($((SECONDS - start)) s)"
  else echo "--- $name: FAILED ($((SECONDS - start)) s)"; failed+=("$name"); fi
}

# ---- Meson build with the bindings ----
src=$root
build=${OPENETW_BINDINGS_BUILD:-$out/build}
build_meson() {
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" -Dtests=false >"$out/setup.log" 2>&1 || { cat "$out/setup.log"; return 1; }
  fi
  ninja -C "$build" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; return 1; }
  for f in libopenetw.so.1 openetw-hostd bindings/python/openetw/_native.py bindings/csharp/native/NativeMethods.cs \
           bindings/csharp/native/libopenetw_csharp.so; do
    [ -e "$build/$f" ] || { echo "missing $build/$f (is swig or python3-dev missing?)"; return 1; }
  done
}
step "meson build (library + SWIG bindings)" build_meson
if ((${#failed[@]})); then echo "FAILED: ${failed[*]}"; exit 1; fi
# The session host of this build, for the tests whose children use a namespace of
# their own (the C# tests load a copy of libopenetw that has no host beside it).
export OPENETW_HOSTD=$build/openetw-hostd

# ---- The NuGet package's other runtimes: linux-arm64 and win-x64, each built once ----
arm64=$out/build-arm64 win64=${OPENETW_BINDINGS_WIN64:-$out/build-win64}
build_cross() { # build dir, cross file, files it must produce...
  local dir=$1 cross=$2; shift 2
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$src" --cross-file "$root/cross/$cross" -Dtests=false -Dbench=disabled \
      >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  fi
  ninja -C "$dir" >"$dir.log" 2>&1 || { tail -40 "$dir.log"; return 1; }
  for f in "$@"; do [ -e "$dir/$f" ] || { echo "missing $dir/$f"; return 1; }; done
}
step "linux-arm64 native libraries (cross)" build_cross "$arm64" aarch64-linux-gnu.txt \
  libopenetw.so.1 bindings/csharp/native/libopenetw_csharp.so
step "win-x64 native libraries (mingw)" build_cross "$win64" x86_64-w64-mingw32.txt \
  openetw-1.dll bindings/csharp/native/openetw_csharp.dll

export PKG_CONFIG_PATH=$build/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export CARGO_TARGET_DIR=$out/cargo-target
dotnet_props=(-p:OpenEtwBuildDir="$build" -nologo -v:q)
conformance=$root/tests/conformance
scenario=$conformance/scenario.txt

# ---- The Python package, installed as a user would ----
venv=$out/venv
vpython=$venv/bin/python
python_install() {
  rm -rf "$venv" && "$python" -m venv --system-site-packages "$venv" &&
  "$venv/bin/pip" install -q --no-build-isolation --no-index "$root/bindings/python" >"$out/pip.log" 2>&1 ||
    { cat "$out/pip.log"; return 1; }
  # Installed, typed, and loading libopenetw with no LD_LIBRARY_PATH or PYTHONPATH.
  (cd "$out" && env -u LD_LIBRARY_PATH -u PYTHONPATH "$vpython" -P -c '
import importlib.resources, openetw, sys
assert openetw.__file__.startswith(sys.prefix), openetw.__file__
assert importlib.resources.files("openetw").joinpath("py.typed").is_file()
print("installed openetw", openetw.__version__)')
}
step "python: pip install into a venv" python_install

# ---- Conformance runners ----
build_runners() {
  "$python" "$conformance/constants.py" "$out/constants.inc" \
    "$root"/include/openetw/{status,constants,records,properties,version,session,provider,consumer}.h &&
  cc -std=c99 -Wall -Wextra -Werror -pedantic -pthread -I"$out" -I"$root/include" \
    "$conformance/runner.c" "$conformance/runner_session.c" "$conformance/runner_modern.c" \
    -o "$out/conformance-c" $(pkg-config --libs openetw) -Wl,-rpath,"$build" &&
  dotnet restore "$conformance/csharp" --source "$feed" "${dotnet_props[@]}" &&
  dotnet build "$conformance/csharp" --no-restore -c Release -o "$out/conformance-cs" "${dotnet_props[@]}" &&
  cargo build --offline --release -q --manifest-path "$conformance/rust/Cargo.toml"
}
run_runner() { # language, scenario file, output file
  case "$1" in
    c) "$out/conformance-c" "$2" ;;
    python) "$vpython" -P "$conformance/runner.py" "$2" ;;
    csharp) dotnet "$out/conformance-cs/ConformanceRunner.dll" "$2" ;;
    rust) LD_LIBRARY_PATH=$build "$CARGO_TARGET_DIR/release/openetw-conformance" "$2" ;;
  esac >"$3" 2>&1
}
runners=(c python csharp rust)
conformance_all() {
  local lang ok=0
  for lang in "${runners[@]}"; do
    if run_runner "$lang" "$scenario" "$out/conformance-$lang.txt"; then
      echo "$lang: $(tail -1 "$out/conformance-$lang.txt")"
    else
      echo "$lang runner failed:"; grep -v '^ok ' "$out/conformance-$lang.txt"; ok=1
    fi
  done
  for lang in "${runners[@]:1}"; do # all four print the same lines
    diff -u "$out/conformance-c.txt" "$out/conformance-$lang.txt" >/dev/null ||
      { echo "the $lang runner disagrees with the C runner:"; diff -u "$out/conformance-c.txt" "$out/conformance-$lang.txt"; ok=1; }
  done
  return $ok
}
conformance_can_fail() { # a broken scenario (a wrong block size) must fail every runner
  local lang ok=0
  sed 's/^export size=224$/export size=225/' "$scenario" >"$out/broken-scenario.txt"
  cmp -s "$scenario" "$out/broken-scenario.txt" && { echo "the broken copy is unchanged"; return 1; }
  for lang in "${runners[@]}"; do
    if run_runner "$lang" "$out/broken-scenario.txt" "$out/broken-$lang.txt"; then
      echo "the $lang runner passed a broken scenario"; ok=1
    elif ! grep -q "^FAIL file-sequential" "$out/broken-$lang.txt"; then
      echo "the $lang runner failed for another reason:"; cat "$out/broken-$lang.txt"; ok=1
    fi
  done
  return $ok
}
step "conformance runners: build" build_runners
step "conformance: C, Python, C#, Rust agree" conformance_all
step "conformance: every runner fails a broken scenario" conformance_can_fail

# ---- A nats-server for the fleet examples (JetStream on temporary storage, a password) ----
nats_dir=$(mktemp -d) nats_pid=
trap '[ -n "$nats_pid" ] && kill "$nats_pid" 2>/dev/null; rm -rf "$nats_dir"' EXIT
nats_start() {
  local port i
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$nats_server" -js -sd "$nats_dir/js" -a 127.0.0.1 -p "$port" --user openetw --pass example-secret \
    -l "$nats_dir/nats.log" &
  nats_pid=$!
  for i in $(seq 400); do
    grep -q "Server is ready" "$nats_dir/nats.log" 2>/dev/null && break
    sleep 0.025
  done
  grep -q "Server is ready" "$nats_dir/nats.log" || { cat "$nats_dir/nats.log"; return 1; }
  printf 'user = openetw\npassword = example-secret\n' >"$nats_dir/nats.conf"
  export OPENETW_EXAMPLE_NATS_URL=nats://127.0.0.1:$port OPENETW_EXAMPLE_NATS_CREDENTIALS=$nats_dir/nats.conf
  export OPENETW_SPOOL_DIR=$nats_dir/spool
}
step "nats-server for the fleet examples" nats_start

# ---- Each language's own tests ----
python_tests() {
  "$vpython" -P -m pytest -q -p no:cacheprovider "$root/bindings/python/tests"
}
csharp_tests() {
  local tests=$root/bindings/csharp/OpenEtw.Tests
  dotnet restore "$tests" --source "$feed" "${dotnet_props[@]}" &&
  # normal verbosity: a failed test prints its message and stack, not only its name
  dotnet test "$tests" --no-restore "${dotnet_props[@]}" --logger "console;verbosity=normal" 2>&1 |
    grep -vE '^\s*$|^Test run for|^A total of|^VSTest|^Copyright|^Microsoft \(R\)|^  Passed '
}
nuget_package() { # pack, then install into a fresh console project from local feeds only
  local work=$out/nuget listing version
  version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" "$root/meson.build" | head -1) # project(), not the soname's
  rm -rf "$work" && mkdir -p "$work/feed" &&
  dotnet pack "$root/bindings/csharp/OpenEtw" -c Release -o "$work/feed" --source "$feed" "${dotnet_props[@]}" \
    -p:OpenEtwLinuxArm64BuildDir="$arm64" -p:OpenEtwWinX64BuildDir="$win64" &&
  listing=$("$python" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' \
              "$work/feed/OpenEtw.$version.nupkg") &&
  grep -qx "runtimes/linux-x64/native/libopenetw.so.1" <<<"$listing" &&
  grep -qx "runtimes/linux-x64/native/libopenetw_csharp.so" <<<"$listing" &&
  grep -qx "runtimes/linux-arm64/native/libopenetw.so.1" <<<"$listing" &&
  grep -qx "runtimes/linux-arm64/native/libopenetw_csharp.so" <<<"$listing" &&
  grep -qx "runtimes/win-x64/native/openetw-1.dll" <<<"$listing" &&
  grep -qx "runtimes/win-x64/native/openetw_csharp.dll" <<<"$listing" &&
  grep -qx "lib/net10.0/OpenEtw.dll" <<<"$listing" &&
  dotnet new console -o "$work/App" -n App --no-restore >/dev/null &&
  cat >"$work/App/nuget.config" <<EOF &&
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources><clear /><add key="local" value="$work/feed" /><add key="offline" value="$feed" /></packageSources>
</configuration>
EOF
  cp "$root/bindings/csharp/examples/Quickstart.cs" "$work/App/Program.cs" &&
  (cd "$work/App" && dotnet add package OpenEtw --version "$version" --no-restore >/dev/null &&
   NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/run.txt" &&
  grep -qx "Quickstart CSharp: complete=True, 4 records" "$work/run.txt" &&
  cp "$root/bindings/csharp/examples/LiveTrace.cs" "$work/App/Program.cs" &&
  (cd "$work/App" && NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/live.txt" &&
  grep -qx "Live CSharp: 100000 events received, 0 lost" "$work/live.txt" &&
  cp "$root/bindings/csharp/examples/DecodedFields.cs" "$work/App/Program.cs" &&
  (cd "$work/App" && NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/decoded.txt" &&
  grep -qx 'Decoded CSharp: FileIo/Name FileName=\\Device\\HarddiskVolume3\\notes.txt FileObject=0xFFFF8000DEAD0010 (UInt64)' "$work/decoded.txt" &&
  cp "$root/bindings/csharp/examples/ManifestSchemas.cs" "$work/App/Program.cs" &&
  (cd "$work/App" && NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/manifest.txt" &&
  grep -qx 'Manifest CSharp: Contoso-Orders/Shipped OrderId=4711 Customer=Fabrikam' "$work/manifest.txt" &&
  cp "$root/bindings/csharp/examples/KernelTrace.cs" "$work/App/Program.cs" && # the system logger: root, as CI
  (cd "$work/App" && NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/kernel.txt" &&
  grep -qx 'Kernel CSharp: Process/Start true (parent this process), Process/End exit 0' "$work/kernel.txt" &&
  cp "$root/bindings/csharp/examples/FleetStream.cs" "$work/App/Program.cs" &&
  (cd "$work/App" && NUGET_PACKAGES=$work/packages dotnet run -v:q) | tee "$work/fleet.txt" &&
  grep -qx 'Fleet CSharp: 1000 events read back, 1 file collected (Written, complete=True, identical=True)' "$work/fleet.txt"
}
rust_tests() {
  "$root/bindings/rust/openetw-sys/regenerate.sh" --check &&
  cargo test --offline -q --manifest-path "$root/bindings/rust/Cargo.toml" 2>&1 | grep -vE '^\s*$|^running 0 tests'
}
rust_user_crate() { # a crate outside the tree: a path dependency, the library found by pkg-config alone
  local crate=$out/rsuser
  rm -rf "$crate" && (cd "$out" && cargo new -q rsuser) &&
  printf 'openetw = { path = "%s/bindings/rust/openetw" }\n' "$root" >>"$crate/Cargo.toml" &&
  printf 'fn main() { let p = openetw::Properties::new("RsUser").expect("properties"); println!("rust user: {} {}", p.session_name(), openetw::version()); }\n' >"$crate/src/main.rs" &&
  (cd "$crate" && env -u OPENETW_LIB_DIR CARGO_TARGET_DIR="$crate/target" cargo build --offline -q) &&
  # Not installed system-wide here, so the loader is told where the build is (after
  # `meson install` the system paths hold it: ../shared/checks/packages runs that).
  LD_LIBRARY_PATH=$build "$crate/target/debug/rsuser" | tee "$out/rsuser.txt" && grep -q '^rust user: RsUser ' "$out/rsuser.txt"
}
cpp_example() { # openetw.hpp as a C++20 user compiles it
  c++ -std=c++20 -Wall -Wextra -Werror -pedantic -pthread "$root/tests/cpp/readme_live_trace.cpp" \
    -o "$out/cpp-live-trace" $(pkg-config --cflags --libs openetw) -Wl,-rpath,"$build" &&
  "$out/cpp-live-trace" | tee "$out/cpp-live.txt" && grep -qx "Live C++: 100000 events received, 0 lost" "$out/cpp-live.txt"
}
readme_examples() { # the README's examples are these files, and each runs
  local py rs
  "$python" "$root/scripts/readme-examples.py" "$root/README.md" "$root/tests/c/readme_example.c" \
    "$root/tests/cpp/readme_live_trace.cpp" \
    "$root/bindings/python/examples/quickstart.py" "$root/bindings/python/examples/live_trace.py" \
    "$root/bindings/csharp/examples/Quickstart.cs" "$root/bindings/csharp/examples/LiveTrace.cs" \
    "$root/bindings/rust/openetw/examples/quickstart.rs" "$root/bindings/rust/openetw/examples/live_trace.rs" \
    "$root/bindings/python/examples/decoded_fields.py" "$root/bindings/csharp/examples/DecodedFields.cs" \
    "$root/bindings/rust/openetw/examples/decoded_fields.rs" \
    "$root/bindings/python/examples/manifest_schemas.py" "$root/bindings/csharp/examples/ManifestSchemas.cs" \
    "$root/bindings/rust/openetw/examples/manifest_schemas.rs" \
    "$root/bindings/python/examples/kernel_trace.py" "$root/bindings/csharp/examples/KernelTrace.cs" \
    "$root/bindings/rust/openetw/examples/kernel_trace.rs" \
    "$root/bindings/python/examples/fleet_stream.py" "$root/bindings/csharp/examples/FleetStream.cs" \
    "$root/bindings/rust/openetw/examples/fleet_stream.rs" &&
  py=$("$vpython" -P "$root/bindings/python/examples/quickstart.py") &&
  echo "$py" && grep -qx "Quickstart Python 4 records" <<<"$py" &&
  py=$("$vpython" -P "$root/bindings/python/examples/live_trace.py") &&
  echo "$py" && grep -qx "Live Python: 100000 events received, 0 lost" <<<"$py" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --example quickstart) &&
  echo "$rs" && grep -q '^Quickstart: 4 records' <<<"$rs" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --release --example live_trace) &&
  echo "$rs" && grep -qx "Live Rust: 100000 events received, 0 lost" <<<"$rs" &&
  py=$("$vpython" -P "$root/bindings/python/examples/decoded_fields.py") && echo "$py" &&
  grep -qx 'Decoded Python: FileIo/Name FileName=\\Device\\HarddiskVolume3\\notes.txt FileObject=0xFFFF8000DEAD0010 (18446603339957075984)' <<<"$py" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --example decoded_fields) && echo "$rs" &&
  grep -qx 'Decoded Rust: FileIo/Name FileName=\\Device\\HarddiskVolume3\\notes.txt FileObject=0xFFFF8000DEAD0010' <<<"$rs" &&
  py=$("$vpython" -P "$root/bindings/python/examples/manifest_schemas.py") && echo "$py" &&
  grep -qx 'Manifest Python: Contoso-Orders/Shipped OrderId=4711 Customer=Fabrikam' <<<"$py" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --example manifest_schemas) && echo "$rs" &&
  grep -qx 'Manifest Rust: Contoso-Orders/Shipped OrderId=4711 Customer=Fabrikam' <<<"$rs" &&
  # The kernel traces record the system logger: root, as CI runs these.
  py=$("$vpython" -P "$root/bindings/python/examples/kernel_trace.py") && echo "$py" &&
  grep -qx 'Kernel Python: Process/Start true (parent this process), Process/End exit 0' <<<"$py" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --example kernel_trace) && echo "$rs" &&
  grep -qx 'Kernel Rust: Process/Start true (parent this process), Process/End exit 0' <<<"$rs" &&
  # The fleet examples: the nats-server this script started (nats_start).
  py=$("$vpython" -P "$root/bindings/python/examples/fleet_stream.py") && echo "$py" &&
  grep -qx 'Fleet Python: 1000 events read back, 1 file collected (written, complete=True, identical=True)' <<<"$py" &&
  rs=$(cd "$root/bindings/rust" && LD_LIBRARY_PATH=$build cargo run --offline -q --example fleet_stream) && echo "$rs" &&
  grep -qx 'Fleet Rust: 1000 events read back, 1 file collected (Written, complete=true, identical=true)' <<<"$rs"
}
step "python: pytest" python_tests
step "csharp: xunit" csharp_tests
step "csharp: NuGet package in a fresh console project" nuget_package
step "rust: bindgen check + cargo test" rust_tests
step "rust: a user crate with a path dependency" rust_user_crate
step "C++: openetw.hpp example" cpp_example
step "README examples (Python, C#, Rust) are these files, and run" readme_examples

if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all binding tests passed ($SECONDS s)"
