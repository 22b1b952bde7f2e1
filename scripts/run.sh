#!/usr/bin/env bash
# README command 1: builds xrpm and runs the main job. With a display it opens xrpm-monitor
# connected to a live emulator (see below); without one it runs headless:
#   1. starts xrpm-emulator (scenario bubbles, 60 fps) with its device agent on 127.0.0.1 (a free
#      port, read from the agent's "listening on" line);
#   2. samples its live counters for 2 s while the game plays (`xrpm counters`);
#   3. captures its heap over the network three times, 2 s of play apart, into
#      build/run/SCENARIO-{1,2,3}.xrpm (`xrpm capture`; .xrpm keeps where and in which frame every
#      object was allocated);
#   4. stops the emulator (always, also on error or Ctrl-C) and reports on the last capture
#      (`xrpm info`, `xrpm types --by-site`, `xrpm report`) and on what the game allocated between
#      the first two captures and still holds in the third (`xrpm leaks`).
# Usage: scripts/run.sh [SCENARIO]   (bubbles by default; leak and synthetic work too)
#        scripts/run.sh mono         the same with a real runtime: the C# sample game XnaBubbles.exe
#                                    under Mono with the device agent inside it (xrpm-mono)
#        scripts/run.sh dotnet       the same game's sources built with the .NET SDK (net10.0)
#                                    and run under CoreCLR with the agent inside (xrpm-dotnet):
#                                    captures at the frame boundary (Game.Tick's return), and
#                                    every allocation reported (--allocations=exact), so the run
#                                    also lists which methods allocate and captures carry their
#                                    objects' allocation sites (docs/DOTNET.md)
# XRPM_HEADLESS=1 forces the headless run; XRPM_MONITOR_ARGS adds options to xrpm-monitor
# (e.g. "--script FILE" for a bounded, scripted GUI run).
set -euo pipefail
cd "$(dirname "$0")/.."
want_gui=""  # a display and not XRPM_HEADLESS=1: the monitor window takes over (below)
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${XRPM_HEADLESS:-}" ]; then want_gui=1; fi
scenario="${1:-bubbles}"
targets=(xrpm xrpm-emulator)
[ "$scenario" = mono ] && targets+=(xrpm-mono mono-profiler-xrpm xrpm_mono_programs)
if [ "$scenario" = dotnet ]; then
  command -v dotnet >/dev/null 2>&1 || {
    echo "run.sh: the .NET port needs the .NET SDK (dotnet on the PATH): https://dot.net" >&2
    exit 1
  }
  targets+=(xrpm-dotnet xrpm_dotnet_program_XnaBubbles)
fi
scripts/build.sh release "${targets[@]}" ${want_gui:+xrpm-monitor} >/dev/null
bin=build/release/bin
xrpm="$bin/xrpm"
out=build/run
mkdir -p "$out"
log="$out/emulator.log"
snap="$out/$scenario-3.xrpm"

emu_pid=""
stop_emulator() {
  if [ -n "$emu_pid" ] && kill -0 "$emu_pid" 2>/dev/null; then
    kill -TERM "$emu_pid" 2>/dev/null || true
    wait "$emu_pid" 2>/dev/null || true
  fi
  emu_pid=""
}
trap stop_emulator EXIT
trap 'exit 130' INT TERM

# Empty the log here, not by the background job's own redirection below: that one runs in the
# forked child, maybe after the loop below has already read the previous run's "listening on"
# line and connected to its dead port ("no xrpm agent answered" on a loaded machine).
: >"$log"
if [ "$scenario" = mono ]; then
  [ -x "$bin/xrpm-mono" ] || {
    echo "run.sh: the Mono port was not built: sudo apt-get install mono-runtime libmono-2.0-dev mono-mcs" >&2
    exit 1
  }
  # --allocations: sampled allocations carry their site and frame into captures; one sample per
  # 1 KiB (not the default 16 KiB) so the small sample game's leak shows within a few seconds.
  "$bin/xrpm-mono" --port 0 --allocations --sample-bytes 1024 \
    -- "$bin/XnaBubbles.exe" 2>"$log" &
  label="xrpm-mono (XnaBubbles.exe under Mono)"
elif [ "$scenario" = dotnet ]; then
  [ -x "$bin/xrpm-dotnet" ] || { echo "run.sh: the .NET port was not built" >&2; exit 1; }
  # --allocations=exact: every allocation reported, exact per-frame figures and samples at the
  # host's interval, and one per 1 KiB from start-up (--sample-bytes) carrying their site and
  # frame into captures (the small sample game allocates a few KiB a frame, too little for the
  # runtime's own sampling at one per 100 KiB, the default, cheaper route). The frame method's
  # hook (the default) gives the frame rows.
  "$bin/xrpm-dotnet" --port 0 --allocations=exact --sample-bytes 1024 \
    -- "$bin/dotnet/XnaBubbles/XnaBubbles.dll" 2>"$log" &
  label="xrpm-dotnet (XnaBubbles.dll under CoreCLR)"
else
  "$bin/xrpm-emulator" --scenario "$scenario" --port 0 2>"$log" &
  label="xrpm-emulator ($scenario)"
fi
emu_pid=$!

endpoint=""
for _ in $(seq 100); do  # up to 10 s for the agent to listen
  endpoint=$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$log" 2>/dev/null | head -1 | cut -d' ' -f3 || true)
  [ -n "$endpoint" ] && break
  kill -0 "$emu_pid" 2>/dev/null || { cat "$log" >&2; echo "run.sh: the emulator exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$endpoint" ] || { cat "$log" >&2; echo "run.sh: the emulator's agent did not start" >&2; exit 1; }

echo "== $label serving on $endpoint"

# With a display ($DISPLAY or $WAYLAND_DISPLAY), the monitor window takes over, connected to this
# emulator: live counters, Capture heap, browse, compare, save. Closing the window stops the
# emulator. XRPM_HEADLESS=1 (or no display, or a window that cannot open) keeps the headless run.
if [ -n "$want_gui" ]; then
  echo "== xrpm-monitor connected to $endpoint (close the window to stop the emulator)"
  rc=0
  # shellcheck disable=SC2086  # XRPM_MONITOR_ARGS is a list of options
  "$bin/xrpm-monitor" --connect "$endpoint" ${XRPM_MONITOR_ARGS:-} || rc=$?
  [ "$rc" -eq 3 ] || exit "$rc"  # 3: no window could be opened; go on headless
  echo "run.sh: no window could be opened; continuing headless" >&2
fi
echo
echo "== live counters (2 s)"
"$xrpm" counters --connect "$endpoint" --interval 100 --duration 2
echo
if [ "$scenario" = dotnet ]; then
  echo "== frames, collections and allocation samples (5 s): which code makes the garbage"
  "$xrpm" allocations --connect "$endpoint" --duration 5 --sample-bytes 1024 --by method --top 8
  echo
fi
echo "== heap captures (three, 2 s of play apart)"

for n in 1 2 3; do
  [ "$n" = 1 ] || sleep 2  # let the game play between captures
  "$xrpm" capture --connect "$endpoint" -o "$out/$scenario-$n.xrpm"
done
stop_emulator
echo
"$xrpm" info "$snap"
echo
"$xrpm" types --by-site --top 15 "$snap"
echo
"$xrpm" report "$snap"
echo
echo "== allocated between capture 1 and capture 2, still alive in capture 3"
"$xrpm" leaks "$out/$scenario-1.xrpm" "$out/$scenario-2.xrpm" "$snap"
