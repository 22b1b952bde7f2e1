#!/usr/bin/env bash
# Configures and builds one preset (default: release). Usage: scripts/build.sh [preset] [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"; shift || true
# ccache (when installed) keys paths relative to the checkout, so clones share cached objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
# Debug info names the build directory; do not let that split the cache between clones.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
source scripts/lib/step_timer.sh
scripts/deps.sh
# With the .NET SDK: dotnet-gcdump into build/tools for tests/dotnet (quiet, bounded, never fails).
scripts/dotnet_tools.sh
step "configure $preset" cmake --preset "$preset" >/dev/null
if [ $# -gt 0 ]; then
  step "build $preset ($*)" cmake --build --preset "$preset" --target "$@"
else
  step "build $preset" cmake --build --preset "$preset"
fi
