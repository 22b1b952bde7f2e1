#!/usr/bin/env bash
# README command 1: builds xrpm and runs the main job.
# (Grows with the product: today it builds and shows the CLI; see README.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release >/dev/null
build/release/host-monitor/xrpm --help
