#!/usr/bin/env bash
# The big-endian check (.ci/run big-endian): the device side runs on a big-endian CPU and the
# native x86-64 host captures from it.
#
#   1. Cross-compiles protocol, device-agent, the emulator runtime and xrpm-emulator for s390x
#      (big-endian, like the Xbox 360's PowerPC) with Debian's g++-s390x-linux-gnu, against the
#      s390x builds of ENet, protobuf-lite, libsodium, xxHash and CLI11, fetched with
#      `apt-get download` into build/s390x-debs/ (kept between local runs) and unpacked with
#      `dpkg -x` into build/s390x/sysroot/ (no multiarch installation on the machine).
#   2. Runs that xrpm-emulator under qemu-s390x (Debian qemu-user), its agent on 127.0.0.1.
#   3. Captures the synthetic and the bubbles scenarios with the native `xrpm capture` and requires
#      the synthetic capture to equal, record for record and in its allocation sites per type, the
#      ground truth the native emulator writes (`--dump`) for the same seed, and its fields and
#      values (layouts, reference fields, Int32 values, string text; xrpm_fields_dump) to equal
#      the native emulator's; the bubbles capture must load with no problem and name the methods
#      that allocated its objects.
#
# Usage: scripts/big_endian.sh [--no-native-build]   (needs build/release's xrpm, xrpm-emulator
#        and xrpm_fields_dump; built here unless --no-native-build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
native_build=1
[ "${1:-}" = "--no-native-build" ] && native_build=0

scripts/deps.sh --big-endian
if [ "$native_build" = 1 ]; then scripts/build.sh release xrpm xrpm-emulator xrpm_fields_dump; fi
native=$root/build/release
out=$root/build/s390x
sysroot=$out/sysroot
debs=$root/build/s390x-debs
mkdir -p "$out" "$debs"

# ---- 1. the s390x packages, downloaded once (their own apt lists, not the machine's)
pkgs=(libenet7 libenet-dev libprotobuf-lite32 libprotobuf-dev libsodium23 libsodium-dev
      libxxhash-dev libcli11-dev)
apt_opts=(-o APT::Architecture=s390x -o APT::Architectures::=s390x
          -o Dir::State::Lists="$debs/lists" -o Dir::Cache="$debs/cache"
          -o Dir::State::status=/dev/null -o Debug::NoLocking=1)
need_download=0
for p in "${pkgs[@]}"; do ls "$debs/${p}"_*.deb >/dev/null 2>&1 || need_download=1; done
if [ "$need_download" = 1 ]; then
  echo "big-endian: downloading s390x packages: ${pkgs[*]}"
  mkdir -p "$debs/lists/partial" "$debs/cache/archives/partial"
  apt-get "${apt_opts[@]}" update -qq
  (cd "$debs" && apt-get "${apt_opts[@]}" download "${pkgs[@]/%/:s390x}" 2>&1 \
     | grep -v 'Download is performed unsandboxed' || true)
  for p in "${pkgs[@]}"; do
    ls "$debs/${p}"_*.deb >/dev/null 2>&1 || { echo "big-endian: could not download $p:s390x" >&2; exit 1; }
  done
fi
if [ ! -f "$sysroot/.complete" ]; then
  rm -rf "$sysroot"; mkdir -p "$sysroot"
  for d in "$debs"/*.deb; do dpkg -x "$d" "$sysroot"; done
  touch "$sysroot/.complete"
fi

# ---- 2. the cross build of the device side
export CCACHE_BASEDIR="$root"
cmake -S . -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_TOOLCHAIN_FILE="$root/scripts/cross/s390x-linux-gnu.cmake" \
  -DXRPM_S390X_SYSROOT="$sysroot" -DXRPM_DEVICE_ONLY=ON >/dev/null
cmake --build "$out/build" --target xrpm-emulator
emu_be=$out/build/bin/xrpm-emulator
readelf -h "$emu_be" | grep -q 'big endian' || { echo "big-endian: $emu_be is not big-endian" >&2; exit 1; }

qemu=(qemu-s390x -L /usr/s390x-linux-gnu -E "LD_LIBRARY_PATH=$sysroot/usr/lib/s390x-linux-gnu")
work=$out/run
rm -rf "$work"; mkdir -p "$work"

emu_pid=
cleanup() { [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

# Starts the s390x emulator with "$@" on a free loopback port; sets emu_pid and port.
start_be_emulator() {
  local log=$1; shift
  : >"$log"
  "${qemu[@]}" "$emu_be" --port 0 "$@" 2>"$log" &
  emu_pid=$!
  wait_listening "$log"
}
# Waits for the emulator emu_pid to log its agent's port; sets port.
wait_listening() {
  local log=$1
  port=
  for _ in $(seq 1 600); do   # the listening line, within 60 s (qemu starts slowly)
    port=$(sed -n 's/^xrpm-agent: listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -1)
    [ -n "$port" ] && return 0
    kill -0 "$emu_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "big-endian: the emulator did not start listening:" >&2; cat "$log" >&2; exit 1
}
stop_be_emulator() { kill "$emu_pid" 2>/dev/null || true; wait "$emu_pid" 2>/dev/null || true; emu_pid=; }
# The canonical text of a fields + values capture from the emulator on $port, to "$1". The
# agent serves one host: a previous one may still be leaving, so a refused handshake is retried.
fields_dump() {
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    "$native/bin/xrpm_fields_dump" --connect "127.0.0.1:$port" --timeout-ms 60000 \
      >"$1" 2>"$1.err" && return 0
    grep -q 'handshake refused' "$1.err" || break
    sleep 1
  done
  echo "big-endian: no fields capture from 127.0.0.1:$port:" >&2; cat "$1.err" >&2; exit 1
}

# ---- 3a. synthetic: capture from big-endian == native ground truth, record for record, and the
#          same allocation sites per type (the allocation-origin columns of the wire, #16)
synth=(--scenario synthetic --seed 7 --objects 20000 --types 40)
xrpm=$native/bin/xrpm
"$native/bin/xrpm-emulator" "${synth[@]}" --frames 3 --quiet --dump "$work/synthetic-truth.xrpm"
start_be_emulator "$work/synthetic-emulator.log" "${synth[@]}"
"$xrpm" capture --connect "127.0.0.1:$port" --peer-timeout 60 \
  -o "$work/synthetic-be.xrpm" --json >"$work/synthetic-capture.json"
# Fields and values: the s390x emulator's layouts, reference fields, values and
# string text, as the native one reports them for the same heap.
fields_dump "$work/synthetic-fields-be.txt"
stop_be_emulator
"$native/bin/xrpm-emulator" --port 0 "${synth[@]}" 2>"$work/synthetic-native.log" &
emu_pid=$!
wait_listening "$work/synthetic-native.log"
fields_dump "$work/synthetic-fields-native.txt"
stop_be_emulator
if ! diff "$work/synthetic-fields-native.txt" "$work/synthetic-fields-be.txt" >"$work/fields.diff"; then
  echo "big-endian: the s390x capture's fields and values differ from the x86-64 ones:" >&2
  head -40 "$work/fields.diff" >&2; exit 1
fi
echo "big-endian: synthetic fields and values from s390x equal x86-64's ($(wc -l <"$work/synthetic-fields-be.txt") lines)"
for f in truth be; do
  "$xrpm" convert "$work/synthetic-$f.xrpm" "$work/synthetic-$f.gclog" 2>/dev/null >/dev/null
  "$xrpm" types --by-site --top 0 "$work/synthetic-$f.xrpm" >"$work/synthetic-$f-sites.txt"
done
# The a/c records carry the device clock; everything else must match exactly.
if ! diff <(grep -v '^[ac] ' "$work/synthetic-truth.gclog") <(grep -v '^[ac] ' "$work/synthetic-be.gclog") \
     >"$work/synthetic.diff"; then
  echo "big-endian: the s390x capture differs from the native ground truth:" >&2
  head -40 "$work/synthetic.diff" >&2; exit 1
fi
if ! diff "$work/synthetic-truth-sites.txt" "$work/synthetic-be-sites.txt" >"$work/sites.diff"; then
  echo "big-endian: the s390x capture's allocation sites differ from the native ground truth:" >&2
  head -40 "$work/sites.diff" >&2; exit 1
fi
records=$(grep -vc '^[ac] ' "$work/synthetic-truth.gclog")
echo "big-endian: synthetic capture from s390x equals the x86-64 ground truth ($records records, same sites)"

# ---- 3b. bubbles: a game with threads, statics, handles and strings
start_be_emulator "$work/bubbles-emulator.log" --scenario bubbles
"$native/bin/xrpm" capture --connect "127.0.0.1:$port" --peer-timeout 60 \
  -o "$work/bubbles-be.xrpm" --json >"$work/bubbles-capture.json"
stop_be_emulator
"$xrpm" info --strict "$work/bubbles-be.xrpm" >"$work/bubbles-info.txt"
"$xrpm" types --by-site --top 0 "$work/bubbles-be.xrpm" >"$work/bubbles-types.txt"
grep -q 'Bubbles\.Bubble' "$work/bubbles-types.txt" \
  || { echo "big-endian: the bubbles capture has no Bubbles.Bubble objects" >&2; exit 1; }
# Sites travel as names and stacks: the game object was allocated by Main, whenever the capture ran.
grep -q 'Bubbles\.Game1  *Bubbles\.Program\.Main$' "$work/bubbles-types.txt" \
  || { echo "big-endian: the bubbles capture does not say Bubbles.Program.Main allocated Game1" >&2
       exit 1; }
objects=$(sed -n 's/.*"objects": *\([0-9]*\).*/\1/p' "$work/bubbles-capture.json")
echo "big-endian: bubbles capture from s390x ($objects objects) loads with no problem (--strict), sites named"
