#!/usr/bin/env bash
# Sets up and runs the demo trace: builds OpenETW, starts a session logging to
# an .etl file, writes events from two threads, stops it (printing the final
# statistics), then reads the file back with etwdump and prints its summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build >/dev/null
# Only what the demo runs (the library comes with them), not the test suite.
ninja -C build tools/demo/openetw-demo tools/etwdump/etwdump openetw-hostd >/dev/null
trace=${TMPDIR:-/tmp}/openetw-demo.etl
echo "== writing $trace"
build/tools/demo/openetw-demo --output "$trace" --events 200000 --threads 2 --payload 64 --max-buffers 256
echo
echo "== reading it back"
build/tools/etwdump/etwdump "$trace"
