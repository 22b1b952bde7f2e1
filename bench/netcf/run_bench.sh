#!/usr/bin/env bash
# NETCF reader/writer benchmark: parse and write time of a generated dump against `wc -l` on the
# same file, measured in the same run (interleaved, each parse in a fresh process); and the .xrpm
# file of the same heap: its size, write time and open time against the .gclog's, same run.
# Usage: bench/netcf/run_bench.sh [OBJECTS=10000000] [RUNS=5] [THREADS=0]
# Prints one key=value line per measurement and a summary (min and median of RUNS).
set -euo pipefail
cd "$(dirname "$0")/../.."
objects="${1:-10000000}"; runs="${2:-5}"; threads="${3:-0}"
cmake --build --preset release --target netcf_bench >/dev/null
bench=build/release/bin/netcf_bench
dir="${TMPDIR:-/tmp}/xrpm-netcf-bench"; mkdir -p "$dir"
file="$dir/heap-$objects.gclog"
[ -s "$file" ] || "$bench" gen "$objects" 1 "$file" >/dev/null
xrpm="$dir/heap-$objects.xrpm"
# Writes: the .xrpm and the .gclog of the same loaded heap, one after the other.
write_line=$("$bench" xrpm-write "$file" "$xrpm" "$dir/rewritten.gclog")
echo "$write_line"
cmp -s "$file" "$dir/rewritten.gclog" && echo "rewrite: byte-identical" || echo "rewrite: DIFFERENT"
rm -f "$dir/rewritten.gclog"
cat "$file" "$xrpm" >/dev/null  # every side reads from the page cache

wc_s=(); wc_cpu=(); parse_s=(); parse_cpu=(); parse_line=""; open_s=(); open_cpu=(); open_line=""
TIMEFORMAT='%R %U %S'
field() { sed -E "s/.*$1=([0-9.]+).*/\1/" <<<"$2"; }
"$bench" parse "$file" "$threads" >/dev/null  # warm-up (first touch of fresh memory is slow on VMs)
for _ in $(seq "$runs"); do
  read -r w u s < <({ time wc -l "$file" >/dev/null; } 2>&1)
  wc_s+=("$w"); wc_cpu+=("$(awk -v a="$u" -v b="$s" 'BEGIN {print a + b}')")
  parse_line=$("$bench" parse "$file" "$threads")
  parse_s+=("$(field parse_s "$parse_line")"); parse_cpu+=("$(field parse_cpu_s "$parse_line")")
  open_line=$("$bench" xrpm-open "$xrpm" "$threads")
  open_s+=("$(field open_s "$open_line")"); open_cpu+=("$(field open_cpu_s "$open_line")")
  echo "wc_s=${wc_s[-1]} wc_cpu_s=${wc_cpu[-1]} $parse_line"
  echo "  $open_line"
done

stats() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "min=%.3f median=%.3f", a[1], a[int((NR+1)/2)]}'; }
echo "summary: objects=$objects runs=$runs threads=$threads bytes=$(stat -c %s "$file")"
echo "  wc -l wall  $(stats "${wc_s[@]}")   cpu $(stats "${wc_cpu[@]}")"
echo "  parse wall  $(stats "${parse_s[@]}")   cpu $(stats "${parse_cpu[@]}")"
pick() { local k="$1"; shift; printf '%s\n' "$@" | sort -g | sed -n "${k}p"; }
mid=$(( (runs + 1) / 2 ))
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "  parse / wc -l wall: best $(ratio "$(pick 1 "${parse_s[@]}")" "$(pick 1 "${wc_s[@]}")")x," \
     "median $(ratio "$(pick $mid "${parse_s[@]}")" "$(pick $mid "${wc_s[@]}")")x (target <= 3x)"
echo "  xrpm open wall $(stats "${open_s[@]}")   cpu $(stats "${open_cpu[@]}")"
echo "  xrpm open / parse wall: best $(ratio "$(pick 1 "${open_s[@]}")" "$(pick 1 "${parse_s[@]}")")x," \
     "median $(ratio "$(pick $mid "${open_s[@]}")" "$(pick $mid "${parse_s[@]}")")x (target <= 0.25x)"
echo "  xrpm write / gclog write, size: $(sed -E 's/.*write_ratio=([0-9.]+) size_ratio=([0-9.]+).*/\1x (target <= 0.5x), size \2x (target <= 0.25x)/' <<<"$write_line")"
