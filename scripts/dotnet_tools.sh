#!/usr/bin/env bash
# Installs the .NET tools the tests use as independent readings into build/tools/ (beside the
# presets' build trees, shared by them): today dotnet-gcdump, the runtime team's heap dumper,
# which tests/dotnet compares the .NET port's captures with. Called by scripts/build.sh; does
# nothing without the .NET SDK (`dotnet` on the PATH) and nothing when the tool is already there.
# A failed install (NuGet unreachable, say) never fails the build: it prints one line saying why
# and leaves the reason in build/tools/dotnet-gcdump.unavailable, which the test then reports
# as its reason to skip. The next run tries again.
# Usage: scripts/dotnet_tools.sh
set -uo pipefail
cd "$(dirname "$0")/.."
command -v dotnet >/dev/null 2>&1 || exit 0
tools=build/tools
gcdump_version=10.0.750501
mkdir -p "$tools"
[ -x "$tools/dotnet-gcdump" ] && exit 0
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
log="$tools/dotnet-gcdump.install.log"
echo "dotnet_tools.sh: installing dotnet-gcdump $gcdump_version into $tools" >&2
# Bounded: an unreachable NuGet makes `dotnet tool install` retry for minutes otherwise.
if timeout 300 dotnet tool install --tool-path "$tools" dotnet-gcdump \
  --version "$gcdump_version" >"$log" 2>&1 && [ -x "$tools/dotnet-gcdump" ]; then
  rm -f "$tools/dotnet-gcdump.unavailable"
  exit 0
fi
why=$(grep -m1 -iE 'error|unable|fail|exception|refused' "$log" || grep -v '^\s*$' "$log" | tail -1)
[ -n "$why" ] || why="timed out after 300 s"
reason="dotnet tool install dotnet-gcdump $gcdump_version failed (NuGet unreachable?): $(
  echo "$why" | tr -s ' ' | cut -c1-200)"
echo "$reason" >"$tools/dotnet-gcdump.unavailable"
echo "dotnet_tools.sh: $reason; see $log (the gcdump comparison in tests/dotnet will skip)" >&2
exit 0
