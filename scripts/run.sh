#!/usr/bin/env bash
# README command 1: builds xrpm and runs the main job.
# Interim main job (until emulator + capture + GUI exist): load a sample NETCF heap dump of an
# XNA game (tests/data/netcf/bubbles.gclog, or the file given as $1) and show what it holds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release xrpm >/dev/null
sample="${1:-tests/data/netcf/bubbles.gclog}"
xrpm=build/release/host-monitor/xrpm
"$xrpm" info "$sample"
echo
"$xrpm" types --top 15 "$sample"
