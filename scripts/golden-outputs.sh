#!/usr/bin/env bash
# Runs a fixed set of scenarios and stores their simulated results (stdout without
# wall-clock lines, npus.csv, collectives.csv, fabric files) in OUT, so that a
# refactor can be checked for byte-identical results:
#
#   scripts/golden-outputs.sh build /tmp/before      # on the old code
#   scripts/golden-outputs.sh build /tmp/after       # on the new code
#   diff -r /tmp/before /tmp/after && echo identical
#
# Usage: scripts/golden-outputs.sh BUILD_DIR OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?build dir}" && pwd)
out=${2:?output dir}
mkdir -p "$out"
out=$(cd "$out" && pwd)
R=$here/../shared/reference
A=$R/astra-sim/examples
MB=$A/workload/microbenchmarks
STG=$R/stg-gpt-dp2-tp2-pp2
cd "$(mktemp -d)"

# Strip what depends on the wall clock or the machine.
clean() {
  grep -v -E 'wall|elapsed|events/s|RSS|seconds|progress:|^\[' | sed -E 's/[0-9.]+ ?s wall//g'
}

run() { # name, command...
  local name=$1
  shift
  local dir=$out/$name
  mkdir -p "$dir"
  "$@" --output-dir="$dir/files" --progress-seconds=0 >"$dir/stdout.raw" 2>"$dir/stderr.raw"
  echo "status $?" >"$dir/status"
  clean <"$dir/stdout.raw" | sed "s#$dir#OUT#g" >"$dir/stdout"
  rm -f "$dir/stdout.raw" "$dir/stderr.raw"
}

runner=$build/astra-sim-runner
for be in analytical flow roce; do
  run "ar8-$be" "$runner" --workload-configuration=$MB/all_reduce/8npus_1MB/all_reduce \
    --system-configuration=$A/system/native_collectives/Ring_4chunks.json \
    --network-configuration=$A/network/analytical/Ring_8npus.yml --backend=$be
  run "a2a16-$be" "$runner" --workload-configuration=$MB/all_to_all/16npus_1MB/all_to_all \
    --system-configuration=$A/system/native_collectives/Ring_4chunks.json \
    --network-configuration=$A/network/analytical/Ring_16npus.yml --backend=$be
  run "stg-$be" "$runner" --workload-configuration=$STG/gpt_dp2_tp2_pp2 \
    --comm-group-configuration=$STG/gpt_dp2_tp2_pp2.json \
    --system-configuration=$A/system/native_collectives/Ring_4chunks.json \
    --network-configuration=$A/network/analytical/Ring_8npus.yml --backend=$be
done
run regression-compat "$runner" \
  --workload-configuration=$MB/all_reduce/8npus_1MB/all_reduce \
  --system-configuration=$R/astra-sim/regression-8npu-ring/inputs/system_cfg.json \
  --network-configuration=$R/astra-sim/regression-8npu-ring/inputs/network_cfg.yml \
  --remote-memory-configuration=$R/astra-sim/regression-8npu-ring/inputs/remote_memory_cfg.json \
  --compat=1
run custom-compat "$runner" --workload-configuration=$MB/all_reduce/8npus_1MB/all_reduce \
  --system-configuration=$A/system/custom_collectives/custom_collective.json \
  --network-configuration=$A/network/analytical/Ring_8npus.yml --compat=1
run text-dlrm "$runner" \
  --workload-configuration=$R/astra-sim/text-workloads-2025/text_converter/text_workloads/DLRM_HybridParallel.txt \
  --system-configuration=$R/astra-sim/text-workloads-2025/text_converter/system.json \
  --network-configuration=$R/astra-sim/text-workloads-2025/text_converter/network.yml
run training-on-roce "$build/training-on-roce"
run training-on-roce-hpcc "$build/training-on-roce" --ns3::RdmaHostStack::CongestionControl=ns3::RdmaCcHpcc --ns3::RdmaSwitch::IntEnabled=true --ns3::RdmaHostStack::BaseRtt=10us
echo "golden outputs in $out"
