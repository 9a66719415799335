#!/usr/bin/env bash
# The checking build of CI (doc/testing.rst): clang with AddressSanitizer +
# UndefinedBehaviorSanitizer and libFuzzer coverage (-DASTRA_FUZZ=ON), then
#   1. every test suite under the sanitizers (a finding aborts the program: the
#      suite fails; the bad-input suite's programs run sanitized too),
#   2. a few short example runs,
#   3. a short run of every fuzz harness (FUZZ_SECONDS each, default 45; 0 skips).
# Usage: scripts/check-sanitizers.sh [build-dir]     (default: build-fuzz)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build-fuzz}
fuzz_seconds=${FUZZ_SECONDS:-45}
jobs=$(nproc)
t0=$(date +%s)
stamp() { echo "[sanitize] $1 ($(($(date +%s) - t0)) s)"; }

CC=clang CXX=clang++ cmake -S "$here" -B "$build" -G Ninja -DASTRA_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" >/dev/null
cmake --build "$build" -j "$jobs"
stamp "built"

# a finding ends the program with SIGABRT (status 134): never mistaken for an input error (1)
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_string_checks=1
export UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=exitcode=86
ctest --test-dir "$build" -j "$jobs" --output-on-failure --timeout 1800
stamp "test suites passed"

R=$here/../shared/reference/astra-sim/examples
out=$(mktemp -d)
run() { echo "[sanitize] $*" | cut -c1-160; "$@" >"$out/log" 2>&1 || { tail -40 "$out/log"; exit 1; }; }
W=$R/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce
for b in analytical flow roce; do
  run "$build/astra-sim-runner" --workload-configuration="$W" \
    --system-configuration="$R/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$R/network/analytical/Ring_8npus.yml" --backend="$b" \
    --progress-seconds=0 --output-dir="$out/runner-$b"
done
run "$build/rdma-incast" --senders=4 --size=100000 --cc=hpcc --out="$out/incast"
run "$build/training-on-roce" --progress-seconds=0 --output-dir="$out/training"
stamp "examples passed"
rm -rf "$out"

if [ "$fuzz_seconds" -gt 0 ]; then
  bash "$here/scripts/fuzz.sh" "$build" "$fuzz_seconds"
  stamp "fuzz harnesses clean"
fi
