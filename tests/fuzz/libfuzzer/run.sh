#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time: first every saved crasher
# (regression inputs, which must now pass), then fuzzing from the seeds.
# New corpus entries and crash artifacts go to WORK_DIR, never to the seeds.
# usage: run.sh PROGRAM SECONDS WORK_DIR CRASHERS_DIR SEED_DIR...
set -euo pipefail
prog=$1 seconds=$2 work=$3 crashers=$4; shift 4
mkdir -p "$work/corpus" "$work/artifacts"
shopt -s nullglob
saved=("$crashers"/*)
saved=("${saved[@]/*README*/}")
for f in "${saved[@]}"; do
  [ -n "$f" ] || continue
  "$prog" -runs=1 "$f" >"$work/last-crasher.log" 2>&1 || { echo "crasher $f fails again:"; tail -30 "$work/last-crasher.log"; exit 1; }
done
exec "$prog" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$@"
