#!/usr/bin/env bash
# Sets up and runs the demo: builds OpenETW, then builds an
# EVENT_TRACE_PROPERTIES block, prints it annotated and shows the exact round trip.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
build/tools/etwprops/etwprops --name "OpenETW Demo" --file /tmp/openetw-demo%d.etl \
  --mode "sequential|newfile" --max-file 16 --buffer-kb 64
