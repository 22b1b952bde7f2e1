#!/usr/bin/env bash
# Opening an .xrpm with object contents against the same capture with --no-values (the
# target: open with values <= 1.3x the time without). Captures the emulator's synthetic heap
# over 127.0.0.1 twice from one emulator, alternating (values, --no-values, values, ...; the
# second pair's files are kept), then opens the two files in turn RUNS times in one process
# (xrpm_open_bench: best and median, the ratio, the model's contents memory).
# Usage: bench/formats/values_open.sh [OBJECTS=1000000] [RUNS=7] [THREADS=0] [PORT=4619]
# Files are kept in $TMPDIR/xrpm-values-open (delete them to capture again).
set -euo pipefail
cd "$(dirname "$0")/../.."
objects="${1:-1000000}"; runs="${2:-7}"; threads="${3:-0}"; port="${4:-4619}"
bin=build/release/bin
dir="${TMPDIR:-/tmp}/xrpm-values-open"; mkdir -p "$dir"
v="$dir/synthetic-$objects-values.xrpm"; n="$dir/synthetic-$objects-no-values.xrpm"
if [ ! -s "$v" ] || [ ! -s "$n" ]; then
  heap_mb=$(( objects * 48 / 1000000 + 64 ))
  "$bin/xrpm-emulator" --scenario synthetic --objects "$objects" --heap-mb "$heap_mb" \
    --listen "127.0.0.1:$port" --quiet &
  emu=$!
  trap 'kill "$emu" 2>/dev/null || true' EXIT
  capture() {  # capture OUT [OPTIONS...]; retries while the emulator builds its heap
    local out=$1; shift
    for _ in $(seq 600); do
      "$bin/xrpm" capture --connect "127.0.0.1:$port" -o "$out" --connect-timeout 5 "$@" \
        >/dev/null 2>"$dir/capture.err" && return 0
      grep -q "connect" "$dir/capture.err" || { cat "$dir/capture.err"; exit 1; }
      sleep 1
    done
    cat "$dir/capture.err"; exit 1
  }
  for _ in 1 2; do capture "$v"; capture "$n" --no-values; done
  kill "$emu"; wait "$emu" 2>/dev/null || true; trap - EXIT
fi
echo "files: values $(stat -c %s "$v") bytes, --no-values $(stat -c %s "$n") bytes" \
  "($(awk -v a="$(stat -c %s "$v")" -v b="$(stat -c %s "$n")" 'BEGIN {printf "%.2f", a / b}')x)"
"$bin/xrpm_open_bench" "$runs" "$threads" "$n" "$v"
