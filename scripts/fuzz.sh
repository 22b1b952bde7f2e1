#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang-14, ASan+UBSan) and runs them, one per core at
# a time, each from its seed corpus (tests/fuzz/corpus/<name>) plus a working corpus that grows in
# build/fuzz/corpus/<name> (not committed). Crash, leak, timeout and OOM inputs are written to
# build/fuzz/artifacts/<name>/ and make the script fail. Summary lines go to stdout.
#
# Usage: scripts/fuzz.sh [--time SECONDS | --runs N] [--max-len BYTES] [--jobs N] [--no-build]
#                        [target...]
#   targets: the names after fuzz_ (netcf, ibm_classic, ...); default: every built target.
#   --time 30 (default) is per target; --jobs (default: the number of cores) targets run at once.
#   Run long local runs niced: nice -n 19 scripts/fuzz.sh ...
# Environment: FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS=-seed=1).
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-max_total_time=30)
jobs=$(nproc)
max_len=4096
build=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    --max-len) max_len="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

source scripts/lib/step_timer.sh
if [ "$build" = 1 ]; then
  scripts/deps.sh --fuzz
  step "configure fuzz" cmake --preset fuzz >/dev/null
  step "build fuzz" cmake --build --preset fuzz
fi
bin=build/fuzz/bin
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$bin"/fuzz_*; do [ -x "$f" ] && targets+=("${f##*/fuzz_}"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no fuzz targets in $bin" >&2; exit 1; }

# Sanitizer reports are fatal; a short malloc context keeps ASan's allocator cheap.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=5:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# One target's run: its summary line (and, on a finding, its inputs and the report's first lines)
# goes to build/fuzz/logs/<target>.summary; the exit status says whether it found something.
fuzz_one() {
  local t=$1
  local exe="$bin/fuzz_$t" work=build/fuzz/corpus/$t art=build/fuzz/artifacts/$t
  local log=build/fuzz/logs/$t.log sum=build/fuzz/logs/$t.summary
  mkdir -p "$work" "$art" "$(dirname "$log")"
  local dict=() seeds=()
  [ -f tests/fuzz/$t.dict ] && dict=(-dict=tests/fuzz/$t.dict)
  [ -d tests/fuzz/corpus/$t ] && seeds=(tests/fuzz/corpus/$t)
  local start rc=0
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$exe" "${limit[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" ${FUZZ_ARGS:-} \
    "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  local secs=$(( $(date +%s) - start )) execs rate rss
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $t: ok, ${execs:-?} executions in ${secs}s (${rate:-?}/s), peak RSS ${rss:-?} MB, corpus $(ls "$work" | wc -l)" >"$sum"
  else
    {
      echo "fuzz $t: FAILED (exit $rc) after ${execs:-?} executions in ${secs}s; log $log; inputs:"
      ls "$art" | sed "s|^|  $art/|"
      grep -E "^(==[0-9]+==ERROR|SUMMARY|.*fuzz check failed)" "$log" | head -5 | sed 's/^/  /'
    } >"$sum"
  fi
  return "$rc"
}

for t in "${targets[@]}"; do
  [ -x "$bin/fuzz_$t" ] || { echo "fuzz.sh: no target $bin/fuzz_$t" >&2; exit 1; }
done
# The targets run $jobs at a time (each is one process on one core), so a CI run of every target
# takes about (targets / cores) x --time; the summaries are printed in the targets' order.
failed=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
for t in "${targets[@]}"; do cat "build/fuzz/logs/$t.summary"; done
exit $failed
