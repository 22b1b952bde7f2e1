#!/usr/bin/env bash
# `dotnet build` of a generated solution without the agent and under xrpm-dotnet (no capture),
# alternating in one session: what the agent in the MSBuild process and its declining compiler
# children (docs/DOTNET.md, "Programs that start other .NET processes") cost the build. The
# solution is tests/dotnet's (real_programs.h): PROJECTS library projects of CLASSES generated
# classes each, each referencing the one before, restored offline (a nuget.config clearing the
# sources). Each run is a clean build (bin/ and obj/ removed), one MSBuild process, quiet.
# Modes: plain `dotnet build`; `xrpm-dotnet --no-frame --quiet -- dotnet build` as launched
# (background collections off: the port's per-capture GC events; the children inherit it);
# the same with DOTNET_gcConcurrent=1 (GC events always on in MSBuild; the children as usual).
# Usage: bench/dotnet/build_under_agent.sh [RUNS=3] [PROJECTS=4] [CLASSES=300]
# Prints one line per run (mode, wall seconds) and each mode's median with its ratio to plain.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"; projects="${2:-4}"; classes="${3:-300}"
bin="$PWD/build/release/bin"
[ -x "$bin/xrpm-dotnet" ] || { echo "build xrpm-dotnet first: scripts/build.sh release xrpm-dotnet" >&2; exit 1; }
framework=$(ls -d "$(dirname "$(readlink -f "$(command -v dotnet)")")"/packs/Microsoft.NETCore.App.Ref/*/ref/net* | tail -1)
framework=$(basename "$framework")
dir="${TMPDIR:-/tmp}/xrpm-build-under-agent"
rm -rf "$dir"; mkdir -p "$dir"
{
  echo "<Solution>"
  for ((p = 0; p < projects; p++)); do
    mkdir -p "$dir/P$p"
    {
      echo "<Project Sdk=\"Microsoft.NET.Sdk\">"
      echo "  <PropertyGroup><TargetFramework>$framework</TargetFramework></PropertyGroup>"
      [ "$p" -gt 0 ] && echo "  <ItemGroup><ProjectReference Include=\"../P$((p - 1))/P$((p - 1)).csproj\" /></ItemGroup>"
      echo "</Project>"
    } >"$dir/P$p/P$p.csproj"
    {
      echo "using System; using System.Collections.Generic; using System.Linq;"
      echo "namespace P$p {"
      for ((i = 0; i < classes; i++)); do
        n=$(((i + 1) % classes))
        echo "public class C$i { public int F$i; public string S = \"c$i\"; public List<int> L = new List<int>();"
        echo "  public int M(int x) { var q = Enumerable.Range(0, x).Where(v => v % $((i % 7 + 2)) == 0).Select(v => v * $i).ToList(); return q.Count + F$i + (x > 3 ? new C$n().M(x - 1) : 0); }"
        echo "  public override string ToString() => \$\"{S}:{F$i}:{L.Count}\"; }"
      done
      echo "}"
    } >"$dir/P$p/Gen.cs"
    echo "  <Project Path=\"P$p/P$p.csproj\" />"
  done
  echo "</Solution>"
} >"$dir/Gen.slnx"
printf '<?xml version="1.0" encoding="utf-8"?>\n<configuration><packageSources><clear /></packageSources></configuration>\n' >"$dir/nuget.config"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
args=(build "$dir/Gen.slnx" -nodeReuse:false -m:1 -p:UseSharedCompilation=false
  --disable-build-servers -v:q -nologo)
declare -A times
run() {  # mode command...
  local mode=$1; shift
  rm -rf "$dir"/P*/bin "$dir"/P*/obj
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null || { echo "$mode: the build failed" >&2; exit 1; }
  e=$(date +%s.%N)
  local t; t=$(echo "$e - $s" | bc)
  printf '%-18s %6.2f s\n' "$mode" "$t"
  times[$mode]+="$t "
}
for ((r = 0; r < runs; r++)); do
  run plain dotnet "${args[@]}"
  run agent "$bin/xrpm-dotnet" --port 0 --no-frame --quiet -- dotnet "${args[@]}"
  run agent-gc-always env DOTNET_gcConcurrent=1 "$bin/xrpm-dotnet" --port 0 --no-frame --quiet -- dotnet "${args[@]}"
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(median "${times[plain]}")
for mode in plain agent agent-gc-always; do
  m=$(median "${times[$mode]}")
  printf 'median %-18s %6.2f s  ratio %.2f\n' "$mode" "$m" "$(echo "$m / $base" | bc -l)"
done
