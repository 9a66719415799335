#!/usr/bin/env bash
# Installs the Debian packages the module needs (only those missing), then
# configures and builds the standalone build (Release, against Debian's ns-3.37).
# Usage: scripts/setup.sh [build-dir]     (default: build)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}

pkgs=(build-essential cmake ninja-build ccache libns3-dev ns3 libgsl-dev libprotobuf-dev
      protobuf-compiler libboost-iostreams-dev nlohmann-json3-dev libyaml-cpp-dev zlib1g-dev
      tshark gnuplot-nox time
      clang libclang-rt-14-dev)   # the sanitizer and fuzzing build (doc/testing.rst)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
