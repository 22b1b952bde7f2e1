#!/usr/bin/env bash
# README command 2: builds everything and runs every test (GoogleTest via CTest).
# Usage: scripts/test.sh [preset]   (release by default; asan and tsan also exist)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
source scripts/lib/step_timer.sh
scripts/build.sh "$preset"
step "test $preset" ctest --preset "$preset" -j"$(nproc)" --timeout 600
