#!/usr/bin/env bash
# Distributed runs give the results of one process: runs RoCE scenarios with the
# runner of an ns-3 tree built with --enable-mpi (scripts/check-in-tree.sh) once as
# a plain single process and under mpirun with 1 and 2 ranks, and compares stdout
# (without wall-clock lines) and the report files byte for byte.
#
# Usage: scripts/check-distributed.sh NS3_TREE [OUT_DIR]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=${1:?ns-3 tree}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
runner=$(ls "$tree"/build/contrib/astra-sim/ns3.37-astra-sim-runner-* 2>/dev/null | head -1)
[ -x "$runner" ] || { echo "[distributed] no astra-sim-runner in $tree/build" >&2; exit 1; }
export LD_LIBRARY_PATH="$tree/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
R=$here/../shared/reference
A=$R/astra-sim/examples
MB=$A/workload/microbenchmarks
mpirun=(mpirun --allow-run-as-root --oversubscribe)

# 2 servers of 4 NPUs (Switch 4 x Switch 2): one server per rank with --partition=scale-up
cat >"$out/switch-4x2.yml" <<'EOF'
topology: [ Switch, Switch ]
npus_count: [ 4, 2 ]
bandwidth: [ 200.0, 25.0 ]
latency: [ 250.0, 1000.0 ]
EOF

clean() { grep -v -E 'wall|elapsed|events/s|RSS|seconds|progress:|^\[' ; }

fail=0
run_case() { # name, partition, rank counts, runner arguments...
  local name=$1 partition=$2 nps=$3
  shift 3
  local d=$out/$name
  mkdir -p "$d"
  local t0 t1
  "$runner" "$@" --output-dir="$d/single" --progress-seconds=0 --fabric-outputs=0 >"$d/single.out" 2>"$d/single.err"
  echo "status $?" >>"$d/single.out"
  for np in $nps; do
    t0=$(date +%s.%N)
    "${mpirun[@]}" -np $np "$runner" "$@" --mpi=1 --partition="$partition" \
      --output-dir="$d/np$np" --progress-seconds=0 >"$d/np$np.out" 2>"$d/np$np.err"
    echo "status $?" >>"$d/np$np.out"
    t1=$(date +%s.%N)
    echo "[distributed] $name np=$np: $(echo "$t1 - $t0" | bc) s wall (mpirun); $(grep -h '^rank' "$d/np$np.err" | tr '\n' ';')"
  done
  for np in $nps; do
    local v=np$np
    if ! diff <(clean <"$d/single.out") <(clean <"$d/$v.out") >"$d/$v.stdout.diff"; then
      echo "[distributed] $name: stdout of $v differs from the single process" >&2
      head -20 "$d/$v.stdout.diff" >&2
      fail=1
    fi
    if ! diff -r "$d/single" "$d/$v" >"$d/$v.files.diff"; then
      echo "[distributed] $name: report files of $v differ from the single process" >&2
      head -20 "$d/$v.files.diff" >&2
      fail=1
    fi
  done
  grep -h "partition" "$d/np$np.err" || true
}

run_case ring8-allreduce block "1 2" \
  --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=roce
run_case switch4x2-allreduce scale-up "1 2" \
  --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$out/switch-4x2.yml" --backend=roce

# a 16-NPU leaf-spine (4 leaves of 4, 2 spines): leaves with their hosts, 2 and 4 ranks
cat >"$out/clos16.yml" <<'EOF'
topology: [ Clos ]
npus_count: [ 16 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 4 ]
spines: [ 2 ]
EOF
run_case clos16-allreduce leaf "2 4" \
  --workload-configuration="$MB/all_reduce/16npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$out/clos16.yml" --backend=roce

# --mpi with another backend is an input error (status 1)
"${mpirun[@]}" -np 2 "$runner" --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=analytical \
  --mpi=1 >"$out/analytical.out" 2>&1
st=$?
if [ "$st" -eq 0 ] || ! grep -q "packet-level backend" "$out/analytical.out"; then
  echo "[distributed] --mpi with --backend=analytical was not refused (status $st)" >&2
  fail=1
fi

if [ "$fail" -ne 0 ]; then
  echo "[distributed] FAILED (outputs in $out)" >&2
  exit 1
fi
echo "[distributed] every mpirun run gives the single-process results (outputs in $out)"
