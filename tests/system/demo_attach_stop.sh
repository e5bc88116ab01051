#!/usr/bin/env bash
# openetw-demo --attach counts as written only the events that reached the
# session: the session is stopped while the demo writes, and what the demo
# says it wrote (ETW_OK) and dropped is what the file holds and EventsLost
# counts. Writes after the stop go nowhere (docs/SYSTEM_SESSIONS.md,
# "Providers in other processes"): the demo counts them as not logged. One
# write per thread may race the stop (an ETW_OK that went nowhere).
# Usage: demo_attach_stop.sh BUILD_DIR
set -u
build=$1
threads=2
etwctl=$build/tools/etwctl/etwctl
demo=$build/tools/demo/openetw-demo
etwdump=$build/tools/etwdump/etwdump
dir=$(mktemp -d)
export OPENETW_REGISTRY=/dev/shm/openetw-demo-stop-$$.registry OPENETW_HOSTD=$build/openetw-hostd
cleanup() { "$etwctl" stop DemoStop >/dev/null 2>&1; rm -rf "$dir"; rm -f "$OPENETW_REGISTRY"*; }
trap cleanup EXIT
"$etwctl" start DemoStop --file "$dir/s.etl" --max-buffers 256 >/dev/null || { echo "etwctl start failed"; exit 1; }
"$etwctl" enable DemoStop 6f70656e-6574-7764-6465-6d6f00000001 >/dev/null || { echo "etwctl enable failed"; exit 1; }
"$demo" --attach DemoStop --events 200000000 --threads $threads >"$dir/out.txt" 2>&1 &
pid=$!
sleep 0.5
"$etwctl" stop DemoStop >"$dir/stop.txt" || { echo "etwctl stop failed"; kill $pid; exit 1; }
wait $pid
cat "$dir/out.txt"
written=$(awk '/^events written/{print $3}' "$dir/out.txt")
dropped=$(awk '/^events dropped/{print $3}' "$dir/out.txt")
lost=$(awk '/events_lost:/{print $2}' "$dir/stop.txt")
records=$("$etwdump" "$dir/s.etl" | awk '/^records:/{print $2}')
in_file=$((records - 1)) # the logfile header record
echo "demo: written $written, dropped $dropped; file $in_file, EventsLost $lost"
if [ "$((written + dropped))" -lt "$((in_file + lost))" ] || [ "$((written + dropped))" -gt "$((in_file + lost + threads))" ]; then
    echo "FAIL: the demo's written + dropped is not the file's events + EventsLost"
    exit 1
fi
grep -q "^events not logged" "$dir/out.txt" || { echo "FAIL: the demo finished before the stop: nothing tested"; exit 1; }
exit 0
