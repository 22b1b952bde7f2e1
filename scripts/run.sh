#!/usr/bin/env bash
# README command 1: builds xrpm and runs the main job.
# Interim main job (until emulator + capture + GUI exist): load a sample NETCF heap dump and
# show what it holds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release >/dev/null
sample="${1:-tests/data/netcf/spec-format-sample.gclog}"
build/release/host-monitor/xrpm info "$sample"
