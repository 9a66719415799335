#!/usr/bin/env bash
# Checks the in-tree build: ns-3.37 source from Debian's source package, this
# module copied to contrib/astra-sim, configured optimized with MPI, tests and
# examples, built, the module's test suites run by ns-3's test.py, and distributed
# RoCE runs (mpirun -np 1 / 2 / 4) compared with one process (scripts/check-distributed.sh).
#
# Usage: scripts/check-in-tree.sh [cache-dir]   (default /var/cache/astra-sim)
# The ns-3 source tree and its build are cached in cache-dir, outside the
# repository, so later runs only rebuild the module.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${1:-/var/cache/astra-sim}
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo

# 1. packages (ns-3's build needs python3 for ns3/test.py, MPI for --enable-mpi)
pkgs=(dpkg-dev build-essential cmake ninja-build ccache python3 libopenmpi-dev openmpi-bin
      libgsl-dev libprotobuf-dev protobuf-compiler libboost-iostreams-dev nlohmann-json3-dev
      libyaml-cpp-dev zlib1g-dev libsqlite3-dev libxml2-dev tshark)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. ns-3.37 source from Debian (needs deb-src entries)
src="$cache/ns3-src"
tree=$(ls -d "$src"/ns3-3.37/ns-3.37 2>/dev/null || true)
if [ -z "$tree" ]; then
  if ! apt-get source --print-uris ns3 >/dev/null 2>&1; then
    # deb822 sources (Debian 12 images) and one-line sources.list entries
    for f in /etc/apt/sources.list.d/debian.sources; do
      [ -f "$f" ] && $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    done
    if [ -f /etc/apt/sources.list ] && ! grep -q '^deb-src ' /etc/apt/sources.list; then
      { grep '^deb ' /etc/apt/sources.list || true; } | sed 's/^deb /deb-src /' | $SUDO tee -a /etc/apt/sources.list >/dev/null
    fi
    $SUDO apt-get update -qq
  fi
  mkdir -p "$src"
  (cd "$src" && apt-get source -qq ns3)
  tree=$(ls -d "$src"/ns3-3.37/ns-3.37)
fi
echo "[in-tree] ns-3 tree: $tree"

# 3. the module in contrib/
mkdir -p "$tree/contrib/astra-sim"
tar -C "$here" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$tree/contrib/astra-sim" -xf -
export ASTRA_SIM_SHARED_DIR="$here/../shared"

# 4. configure + build
cd "$tree"
# ns-3 writes a stub <ns3/NAME.h> per module header once and never rewrites it: drop ours so that
# moved or renamed headers are picked up
find "$tree/contrib/astra-sim/model" "$tree/contrib/astra-sim/helper" -name '*.h' -printf '%f\n' |
  while read -r h; do rm -f "$tree/build/include/ns3/$h"; done
# csma: ns-3.37's own src/test (ns3tcp suites) links CsmaHelper
modules="core;network;internet;point-to-point;applications;traffic-control;mpi;stats;bridge;flow-monitor;csma;astra-sim"
# (re-)configure every time: cheap when cached, and it picks up new module files
./ns3 configure -G Ninja --build-profile=optimized --enable-mpi --enable-tests --enable-examples \
  --enable-modules="$modules"
# (./ns3 build runs ninja with one job here; drive the build directory directly)
cmake --build cmake-cache -j "$(nproc)"

# 5. the module's suites through test.py
suites=$(grep -ho 'TestSuite("astra-sim[^"]*"' "$tree"/contrib/astra-sim/test/*.cc | sed 's/TestSuite("//; s/"//' | sort -u)
[ -n "$suites" ] || { echo "[in-tree] no astra-sim test suites found" >&2; exit 1; }
fail=0
for s in $suites; do
  ./test.py --no-build -s "$s" || fail=1
done
# 6. distributed runs (MPI): a single process, mpirun -np 1, 2 and 4 give the same outputs
bash "$here/scripts/check-distributed.sh" "$tree" || fail=1
if [ "$fail" -ne 0 ]; then
  echo "[in-tree] FAILED" >&2
  exit 1
fi
echo "[in-tree] all astra-sim suites passed in the ns-3 tree; distributed runs match one process"
