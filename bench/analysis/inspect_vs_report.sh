#!/usr/bin/env bash
# `xrpm inspect` against `xrpm report` on the same snapshot with values (the targets:
# inspect <= 0.5x report's time, <= 16 B/object of memory beyond the loaded snapshot).
# Captures the emulator's synthetic heap once with values (`xrpm capture`, values are the
# default) over 127.0.0.1, then runs `xrpm info` (load only), `xrpm inspect` and `xrpm report`
# in turn RUNS times, each in a fresh process under /usr/bin/time (wall s, max RSS KiB).
# Usage: bench/analysis/inspect_vs_report.sh [OBJECTS=10000000] [RUNS=3] [PORT=4617]
# Prints one line per run and the medians with the ratios inspect / report.
# BASELINE=/path/to/an/older/xrpm also runs that binary's `inspect` in every run (alternating
# with the current one, same file): a same-run before/after.
set -euo pipefail
cd "$(dirname "$0")/../.."
objects="${1:-10000000}"; runs="${2:-3}"; port="${3:-4617}"
bin=build/release/bin
dir="${TMPDIR:-/tmp}/xrpm-inspect-bench"; mkdir -p "$dir"
file="$dir/synthetic-$objects-values.xrpm"
if [ ! -s "$file" ]; then
  heap_mb=$(( objects * 48 / 1000000 + 64 ))
  "$bin/xrpm-emulator" --scenario synthetic --objects "$objects" --heap-mb "$heap_mb" \
    --listen "127.0.0.1:$port" --quiet &
  emu=$!
  trap 'kill "$emu" 2>/dev/null || true' EXIT
  # The emulator builds its heap before it serves; capture retries the connection for 600 s.
  for _ in $(seq 600); do
    "$bin/xrpm" capture --connect "127.0.0.1:$port" -o "$file" --connect-timeout 5 \
      >/dev/null 2>"$dir/capture.err" && break
    grep -q "connect" "$dir/capture.err" || { cat "$dir/capture.err"; exit 1; }
    sleep 1
  done
  kill "$emu"; wait "$emu" 2>/dev/null || true; trap - EXIT
fi
[ -s "$file" ] || { echo "no capture"; exit 1; }
cat "$file" >/dev/null  # every run reads from the page cache
run() {  # [XRPM=binary] run VERB: prints "wall_s maxrss_kib"
  /usr/bin/time -f "%e %M" -o "$dir/time" "${XRPM:-$bin/xrpm}" "$@" "$file" >/dev/null
  cat "$dir/time"
}
info=(); inspect=(); report=(); base=()
for i in $(seq "$runs"); do
  info+=("$(run info)"); inspect+=("$(run inspect)")
  [ -n "${BASELINE:-}" ] && base+=("$(XRPM="$BASELINE" run inspect)")
  report+=("$(run report)")
  echo "run $i: info ${info[-1]}  inspect ${inspect[-1]}  report ${report[-1]}" \
    "${BASELINE:+ baseline inspect ${base[-1]}}  (s KiB)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { local k=$1; shift; for x in "$@"; do awk -v k="$k" '{print $k}' <<<"$x"; done; }
mi=$(median $(col 1 "${info[@]}")); mn=$(median $(col 1 "${inspect[@]}"))
mr=$(median $(col 1 "${report[@]}"))
ri=$(median $(col 2 "${info[@]}")); rn=$(median $(col 2 "${inspect[@]}"))
rr=$(median $(col 2 "${report[@]}"))
echo "summary: objects=$objects runs=$runs file_bytes=$(stat -c %s "$file")"
echo "  median wall: info ${mi} s, inspect ${mn} s, report ${mr} s;" \
  "inspect/report $(awk -v a="$mn" -v b="$mr" 'BEGIN {printf "%.2f", a / b}')"
echo "  median max RSS: info ${ri} KiB, inspect ${rn} KiB, report ${rr} KiB;" \
  "inspect beyond load $(awk -v a="$rn" -v b="$ri" -v n="$objects" \
    'BEGIN {printf "%.1f", (a - b) * 1024 / n}') B/object"
if [ -n "${BASELINE:-}" ]; then
  mb=$(median $(col 1 "${base[@]}")); rb=$(median $(col 2 "${base[@]}"))
  echo "  baseline inspect: median ${mb} s, ${rb} KiB; inspect/report" \
    "$(awk -v a="$mb" -v b="$mr" 'BEGIN {printf "%.2f", a / b}'), beyond load" \
    "$(awk -v a="$rb" -v b="$ri" -v n="$objects" 'BEGIN {printf "%.1f", (a - b) * 1024 / n}')" \
    "B/object"
fi
