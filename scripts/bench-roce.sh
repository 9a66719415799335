#!/usr/bin/env bash
# Runs roce-bench cases under /usr/bin/time -v, ROUNDS times, interleaving the
# variants of a round, and prints one line per run: variant, wall (s), user (s),
# max RSS (MiB) of the whole process, and roce-bench's own result lines.
#
#   scripts/bench-roce.sh [ROUNDS] [BUILD_DIR]
#   VARIANTS="--cases=anchor --backends=roce;--cases=anchor --backends=roce --ack-interval=0" \
#     scripts/bench-roce.sh 3
set -euo pipefail
ROUNDS=${1:-3}
BUILD=${2:-build}
VARIANTS=${VARIANTS:-"--cases=anchor --backends=roce;--cases=anchor --backends=roce --ack-interval=0"}
OUT=${OUT:-bench-roce-out}
mkdir -p "$OUT"
IFS=';' read -r -a VARS <<<"$VARIANTS"
for r in $(seq 1 "$ROUNDS"); do
    for i in "${!VARS[@]}"; do
        v=${VARS[$i]}
        log="$OUT/run-$r-$i"
        # shellcheck disable=SC2086
        /usr/bin/time -v "$BUILD/roce-bench" $v >"$log.out" 2>"$log.time" || true
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(k=1;k<=n;k++) s=s*60+a[k]; print s}' "$log.time")
        user=$(awk -F': ' '/User time/ {print $2}' "$log.time")
        rss=$(awk -F': ' '/Maximum resident/ {printf "%.1f", $2/1024}' "$log.time")
        echo "round $r | $v | wall ${wall} s | user ${user} s | max RSS ${rss} MiB"
        grep -E " (roce|flow) " "$log.out" | sed 's/^/    /'
    done
done
