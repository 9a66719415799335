#!/usr/bin/env bash
# Reproduces the cc-study figures and numbers of doc/congestion-control.rst and
# doc/cc-study.rst (standalone Release build in build/, gnuplot-nox installed).
#   bash scripts/cc-study-figures.sh [out-dir]     (default: cc-study-figures)
# 1. 16-to-1 incast of 1 MB at 100 Gbps, DCQCN vs HPCC, PFC on, 32 MiB buffer:
#    bottleneck queue over time -> doc/figures/cc-incast-queue.png, and the
#    time-averaged queue after the first 100 us (the initial line-rate burst).
# 2. the default study (ring all-reduce + 4-to-1 incast background, 6 CCs x PFC on/off).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-cc-study-figures}
bin=build/cc-study
[ -x "$bin" ] || { echo "build first: cmake -S . -B build -G Ninja && ninja -C build" >&2; exit 1; }

"$bin" --workload=none --npus=17 --bg-senders=16 --bg-bytes=1000000 --ccs=dcqcn,hpcc \
  --pfc=1 --buffer=0 --outDir="$out/incast"
for d in "$out"/incast/*/; do
  awk -v n="$(basename "$d")" -v t0=100 '
    NR > 1 { if (seen && $1 > t0) { lo = (t > t0) ? t : t0; area += q * ($1 - lo) }
             t = $1; q = $2; seen = 1; if ($2 > mx) mx = $2 }
    END { printf "%s: peak %.1f KB, mean after %d us %.1f KB, last change at %.0f us\n",
                 n, mx / 1000, t0, area / (t - t0) / 1000, t }' "$d/queue.dat"
done
if [ -f "$out/incast/queue.png" ]; then
  mkdir -p doc/figures
  cp "$out/incast/queue.png" doc/figures/cc-incast-queue.png
  echo "copied doc/figures/cc-incast-queue.png"
fi

"$bin" --outDir="$out/default"
