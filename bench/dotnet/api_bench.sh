#!/usr/bin/env bash
# The in-game API's cost on .NET (Xrpm.dll; docs/PERFORMANCE.md): ApiBench.dll FRAMES under plain
# `dotnet` (no agent) and under xrpm-dotnet (the agent listening, no host), alternating, ROUNDS
# rounds; prints each round's "api_ns ..." line and the medians per column.
#   bench/dotnet/api_bench.sh [BUILD_DIR=build/release] [ROUNDS=5] [FRAMES=3000]
set -euo pipefail
build="${1:-build/release}"
rounds="${2:-5}"
frames="${3:-3000}"
prog="$build/bin/dotnet/ApiBench/ApiBench.dll"
launcher="$build/bin/xrpm-dotnet"
[ -f "$prog" ] && [ -x "$launcher" ] || {
  echo "api_bench: build xrpm-dotnet and xrpm_dotnet_programs first ($prog, $launcher)" >&2
  exit 2
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  dotnet "$prog" "$frames" 2>/dev/null | grep '^api_ns' | tee -a "$out/plain"
  "$launcher" --port 0 --quiet --frame ApiBench.Bench:Tick -- "$prog" "$frames" 2>/dev/null |
    grep '^api_ns' | sed 's/^/agent /' | tee -a "$out/agent"
done
median() {  # column name, file
  awk -v c="$1" '{for (i = 1; i < NF; i++) if ($i == c) print $(i + 1)}' "$2" | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'
}
for run in plain agent; do
  line="median $run:"
  for c in empty call marker scope using_noop; do line="$line $c $(median $c "$out/$run")"; done
  echo "$line"
done
