#!/usr/bin/env bash
# Installs the Debian 12 packages xrpm builds against. As root it runs apt-get;
# otherwise it prints the exact command to run and fails.
# Usage: scripts/deps.sh [--gui] [--fuzz] [--big-endian] [--format]
set -euo pipefail

pkgs=(build-essential cmake ninja-build pkg-config ccache git
      libenet-dev libprotobuf-dev protobuf-compiler libxxhash-dev
      libgtest-dev libgmock-dev libbenchmark-dev
      libcli11-dev nlohmann-json3-dev libzstd-dev libboost-graph-dev libsodium-dev
      libimgui-dev libglfw3-dev libstb-dev libgl-dev
      xvfb xauth libgl1-mesa-dri fonts-dejavu-core nodejs
      fonts-droid-fallback  # the monitor draws CJK text with it (DejaVu covers Latin, Greek, Cyrillic)
      mono-runtime libmono-2.0-dev mono-mcs  # the Mono port (device-agent/ports/mono)
      libmono-profiler  # Mono's log profiler: the independent heap reading of tests/mono
      gendarme mono-csharp-shell libmono-system-web4.0-cil asp.net-examples  # real C# programs
      pngquant  # docs/monitor-*.png (tests/gui/docs_screenshots.script)
      iproute2)  # iproute2: the discovery tests set up loopback multicast in their own netns
# npm (tests/formats installs Chrome DevTools' heap snapshot reader with it): Debian ships it as
# its own package; nodesource's nodejs bundles it and conflicts with that package.
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
for arg in "$@"; do
  case "$arg" in
    --fuzz) pkgs+=(clang-14 libclang-rt-14-dev) ;;
    --big-endian) pkgs+=(g++-s390x-linux-gnu qemu-user binutils) ;;  # scripts/big_endian.sh
    --format) pkgs+=(clang-format-14) ;;  # scripts/format.sh
    --gui) ;;  # the GUI packages are always in the list; kept for compatibility
    *) echo "deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  echo "deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  $cmd
else
  echo "deps.sh: missing Debian packages. Run:" >&2
  echo "  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
