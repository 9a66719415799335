#!/usr/bin/env bash
# Distributed runs give the results of one process: runs RoCE scenarios with the
# programs of an ns-3 tree built with --enable-mpi (scripts/check-in-tree.sh) once as a
# plain single process and under mpirun with 1, 2 and 4 ranks (where the topology
# allows), and compares stdout (without wall-clock lines; it holds the fabric's PFC,
# ECN, drop, retransmission and FCT counts) and every report file (npus.csv,
# collectives.csv, timeline.json, fct.txt, pfc.txt, queue.txt, rate.txt) byte for byte.
# Cases (doc/distributed.rst): the main example (training-on-roce; also with an instant
# slot gate), ring all-reduces on
# 8, 16 and 128 NPUs, an incast whose PFC pauses cross the cut (asserted), the same with
# ECN and DCQCN, lossy links
# whose retransmissions cross the cut (asserted), a hang across ranks (status 2 and the
# report), an input error on one rank (status 1 and its message, every rank stopped) and
# the features distributed runs refuse (status 1 and the reason).
#
# Usage: scripts/check-distributed.sh NS3_TREE [OUT_DIR]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=${1:?ns-3 tree}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
program() { ls "$tree"/build/contrib/astra-sim/ns3.37-"$1"-* 2>/dev/null | head -1; }
runner=$(program astra-sim-runner)
training=$(program training-on-roce)
[ -x "$runner" ] || { echo "[distributed] no astra-sim-runner in $tree/build" >&2; exit 1; }
[ -x "$training" ] || { echo "[distributed] no training-on-roce in $tree/build" >&2; exit 1; }
export LD_LIBRARY_PATH="$tree/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the programs' default inputs (training-on-roce's trace) from this checkout's ../shared
export ASTRA_SIM_SHARED_DIR=${ASTRA_SIM_SHARED_DIR:-$here/../shared}
R=$here/../shared/reference
A=$R/astra-sim/examples
MB=$A/workload/microbenchmarks
RING=$A/system/native_collectives/Ring_4chunks.json
mpirun=(mpirun --allow-run-as-root --oversubscribe)
# a run that does not end is a failure of its own (status 124)
limit=(timeout 900)

fail=0
bad() {
  echo "[distributed] $*" >&2
  fail=1
}

# wall-clock lines out; the output folder's name (training-on-roce prints it) as OUT
clean() { grep -v -E 'wall|elapsed|events/s|RSS|seconds|progress:|^\[' | sed "s#$1#OUT#g"; }

# run_case NAME PROGRAM PARTITION "RANK COUNTS" MODE ARGUMENTS...: one plain process, then
# mpirun -np N for each N. MODE exact: stdout and every report file must be the single
# process's. MODE ties: where the result may differ (doc/distributed.rst, "What is
# identical": the system layer's slot gate sees the members of a collective on other ranks
# as issued); on 1 rank as exact; on more, every run must end with status 0 and the same
# FCT record count (messages); the differences are printed (files, largest NPU finish-time
# difference, PFC pauses, whether collectives.csv has the same rows but for their ids), not
# failed on.
run_case() {
  local name=$1 prog=$2 partition=$3 nps=$4 mode=$5
  shift 5
  local d=$out/$name
  rm -rf "$d"
  mkdir -p "$d"
  local t0 t1
  t0=$(date +%s.%N)
  "${limit[@]}" "$prog" "$@" --output-dir="$d/single" --progress-seconds=0 >"$d/single.out" 2>"$d/single.err"
  echo "status $?" >>"$d/single.out"
  t1=$(date +%s.%N)
  echo "[distributed] $name single: $(echo "$t1 - $t0" | bc) s wall; fct.txt $(grep -vc '^#' "$d/single/fct.txt") lines, pfc.txt $(grep -c ' pause$' "$d/single/pfc.txt") pauses; $(grep -m1 '^fabric:' "$d/single.out")"
  if ! grep -q '^status 0$' "$d/single.out"; then
    bad "$name: the single process ended with $(tail -1 "$d/single.out"): $(head -3 "$d/single.err")"
  fi
  for np in $nps; do
    t0=$(date +%s.%N)
    "${limit[@]}" "${mpirun[@]}" -np "$np" "$prog" "$@" --mpi=1 --partition="$partition" \
      --output-dir="$d/np$np" --progress-seconds=0 >"$d/np$np.out" 2>"$d/np$np.err"
    echo "status $?" >>"$d/np$np.out"
    t1=$(date +%s.%N)
    echo "[distributed] $name np=$np: $(echo "$t1 - $t0" | bc) s wall (mpirun); $(grep -h '^rank [0-9]*:' "$d/np$np.err" | tr '\n' ';')"
    local sdiff=0 fdiff=0
    diff <(clean "$d/single" <"$d/single.out") <(clean "$d/np$np" <"$d/np$np.out") >"$d/np$np.stdout.diff" || sdiff=1
    diff -r "$d/single" "$d/np$np" >"$d/np$np.files.diff" || fdiff=1
    # one rank has no cut: always the single process's bytes
    if [ "$mode" = exact ] || [ "$np" = 1 ]; then
      if [ "$sdiff" -ne 0 ]; then
        bad "$name: stdout of np=$np differs from the single process"
        head -20 "$d/np$np.stdout.diff" >&2
      fi
      if [ "$fdiff" -ne 0 ]; then
        bad "$name: report files of np=$np differ from the single process"
        head -20 "$d/np$np.files.diff" >&2
      fi
    else
      grep -q '^status 0$' "$d/np$np.out" || bad "$name: np=$np ended with $(tail -1 "$d/np$np.out")"
      local a b
      a=$(grep -vc '^#' "$d/single/fct.txt")
      b=$(grep -vc '^#' "$d/np$np/fct.txt")
      [ "$a" = "$b" ] || bad "$name: np=$np has $b FCT records, the single process $a"
      local differ
      differ=$(for f in "$d/single"/*; do cmp -s "$f" "$d/np$np/$(basename "$f")" || basename "$f"; done | tr '\n' ' ')
      local dt
      dt=$(paste -d, "$d/single/npus.csv" "$d/np$np/npus.csv" | awk -F, 'NR > 1 {
             for (i = 1; i <= NF / 2; i++) if ($i ~ /^[0-9]+$/) { x = $i - $(i + NF / 2); if (x < 0) x = -x; if (x > m) m = x } }
           END { print m + 0 }')
      local rows=differ
      cmp -s <(cut -d, -f2- "$d/single/collectives.csv" | sort) <(cut -d, -f2- "$d/np$np/collectives.csv" | sort) && rows=same
      echo "[distributed] $name np=$np ($mode): files that differ: ${differ:-none}; collectives.csv rows without ids: $rows; largest npus.csv difference ${dt} ns; PFC pauses $(grep -c ' pause$' "$d/np$np/pfc.txt") (single $(grep -c ' pause$' "$d/single/pfc.txt")); $(grep -m1 'total time' "$d/np$np.out")"
    fi
    # a rank's own trace folder does not stay behind
    if ls -d "$d/np$np"/.rank-* >/dev/null 2>&1; then
      bad "$name: np=$np left a rank's folder in the output folder"
    fi
  done
  grep -h "partition" "$d/np$np.err" || true
}

# --- the main example: training-on-roce (8 NPUs, Switch 2 x Clos of 2 leaves of 2, 2 spines);
# its gate latency (the largest link latency, 1 us) is at least any cut's delay: exact
run_case training-on-roce "$training" dim0-line "1 2 4" exact
# an instant gate: on 4 ranks the scale-out Clos links are cut and members of one collective
# sit on two ranks, whose gates count the members on other ranks as issued
run_case training-on-roce-instant-gate "$training" dim0-line "4" ties --gate-latency-ns=0

# --- ring all-reduces
run_case ring8-allreduce "$runner" block "1 2 4" exact \
  --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=roce
# 2 servers of 4 NPUs (Switch 4 x Switch 2): one server per rank with --partition=scale-up
cat >"$out/switch-4x2.yml" <<'EOF'
topology: [ Switch, Switch ]
npus_count: [ 4, 2 ]
bandwidth: [ 200.0, 25.0 ]
latency: [ 250.0, 1000.0 ]
EOF
run_case switch4x2-allreduce "$runner" scale-up "1 2" exact \
  --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$out/switch-4x2.yml" --backend=roce
# a 16-NPU leaf-spine (4 leaves of 4, 2 spines): leaves with their hosts
cat >"$out/clos16.yml" <<'EOF'
topology: [ Clos ]
npus_count: [ 16 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 4 ]
spines: [ 2 ]
EOF
run_case clos16-allreduce "$runner" leaf "1 2 4" exact \
  --workload-configuration="$MB/all_reduce/16npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$out/clos16.yml" --backend=roce
# 128 NPUs: 8 leaves of 16, 8 spines, a 4 MiB ring all-reduce
cat >"$out/clos128.yml" <<'EOF'
topology: [ Clos ]
npus_count: [ 128 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 16 ]
spines: [ 8 ]
EOF
printf 'DATA\n1\nar -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 4194304 0\n' >"$out/ar4m.txt"
run_case clos128-allreduce "$runner" leaf "1 2 4" exact \
  --workload-configuration="$out/ar4m.txt" --system-configuration="$RING" \
  --network-configuration="$out/clos128.yml" --backend=roce

# --- an incast: a direct all-to-all of 24 NPUs on 3 leaves of 8 (4:1 oversubscribed uplinks,
# 2 spines, small buffers; ECN off, so that PFC alone holds the incast): every leaf pauses
# its hosts. With --partition=block the NPUs are
# dealt out in equal contiguous ranges (12 or 6 per rank) and a leaf goes with its first
# NPU, so some hosts of a leaf are on another rank: their pauses cross the cut.
cat >"$out/clos24.yml" <<'EOF'
topology: [ Clos ]
npus_count: [ 24 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 8 ]
spines: [ 2 ]
oversubscription: [ 4 ]
EOF
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["all-to-all-implementation"] = ["direct"]
d["active-chunks-per-dimension"] = 4
print(json.dumps(d, indent=1))' "$RING" >"$out/direct.json"
printf 'DATA\n1\na2a -1 0 NONE 0 0 NONE 0 0 ALLTOALL 1048576 0\n' >"$out/a2a1m.txt"
run_case incast24-pfc "$runner" block "1 2 4" exact \
  --workload-configuration="$out/a2a1m.txt" --system-configuration="$out/direct.json" \
  --network-configuration="$out/clos24.yml" --backend=roce --ns3::SwitchMmu::BufferSize=2000000 \
  --ns3::RdmaSwitch::EcnEnabled=false
for np in 2 4; do
  # pfc.txt: time node port priority pause|resume; leaves are nodes 24..26, their ports
  # 0..7 the hosts 8 x leaf + port; NPU n is on rank n / (24 / np)
  cut=$(awk -v per=$((24 / np)) '$5 == "pause" && $2 >= 24 && $2 <= 26 && $3 < 8 {
          l = $2 - 24; if (int((8 * l + $3) / per) != int(8 * l / per)) n++ } END { print n + 0 }' \
    "$out/incast24-pfc/np$np/pfc.txt")
  echo "[distributed] incast24-pfc np=$np: $cut PFC pauses sent over cut links (leaf to a host on another rank)"
  [ "$cut" -gt 0 ] || bad "incast24-pfc np=$np: no PFC pause crossed the cut"
done

# --- the same incast with ECN on: the switches' RED draws (fixed random streams, --rng-stream)
# and DCQCN's reactions, across the cut
run_case incast24-ecn "$runner" block "1 2 4" exact \
  --workload-configuration="$out/a2a1m.txt" --system-configuration="$out/direct.json" \
  --network-configuration="$out/clos24.yml" --backend=roce --ns3::SwitchMmu::BufferSize=2000000
marks=$(sed -n 's/.*ECN marks \([0-9]*\).*/\1/p' "$out/incast24-ecn/single.out")
echo "[distributed] incast24-ecn: $marks ECN marks"
[ "${marks:-0}" -gt 0 ] || bad "incast24-ecn: no ECN marks"

# --- lossy links: every link loses 0.1 % of its frames; the ring all-reduce of clos16 crosses
# the leaves, so lost frames of messages between ranks are retransmitted
run_case clos16-lossy "$runner" leaf "1 2 4" exact \
  --workload-configuration="$MB/all_reduce/16npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$out/clos16.yml" --backend=roce --link-error-rate=0.001
retx=$(sed -n 's/.*retransmitted packets \([0-9]*\).*/\1/p' "$out/clos16-lossy/single.out")
echo "[distributed] clos16-lossy: $retx retransmitted packets"
[ "${retx:-0}" -gt 0 ] || bad "clos16-lossy: no retransmission"
for np in 2 4; do
  # fct.txt: src dst ... fct_ns ideal_fct_ns; a message between hosts of two ranks that took
  # more than 1.5 x its ideal time (lossless, the slowest takes 1.13 x) was retransmitted
  slow=$(awk -v per=$((16 / np)) '!/^#/ && int($1 / per) != int($2 / per) && $7 > 1.5 * $8 { n++ }
          END { print n + 0 }' "$out/clos16-lossy/np$np/fct.txt")
  echo "[distributed] clos16-lossy np=$np: $slow messages between ranks slowed by retransmission"
  [ "$slow" -gt 0 ] || bad "clos16-lossy np=$np: no retransmitted message crossed the cut"
done

# --- a hang across ranks: NPU 0 and NPU 4 each wait for the other's SEND before their own
# (Chakra traces written with protoc); ring of 8, block: NPU 0 on rank 0, NPU 4 on another
proto=$here/model/workload/chakra.proto
frame() {
  python3 -c 'import sys
b = sys.stdin.buffer.read(); n = len(b); o = bytearray()
while True:
    c = n & 0x7f; n >>= 7
    o.append(c | (0x80 if n else 0))
    if not n: break
sys.stdout.buffer.write(bytes(o) + b)'
}
enc() { protoc --proto_path="$(dirname "$proto")" --encode="ChakraProtoMsg.$1" "$(basename "$proto")" | frame; }
p2p() { # id SEND|RECV peer tag [ctrl dep]
  local key=comm_dst
  [ "$2" = RECV ] && key=comm_src
  echo "id: $1 name: \"p2p$1\" type: COMM_$2_NODE ${5:+ctrl_deps: $5}" \
    "attr { name: \"$key\" int64_val: $3 } attr { name: \"comm_tag\" int64_val: $4 }" \
    "attr { name: \"comm_size\" int64_val: 65536 }"
}
mkdir -p "$out/hang"
for r in $(seq 0 7); do
  {
    echo 'version: "0.0.4"' | enc GlobalMetadata
    case $r in
    0) p2p 1 RECV 4 1 | enc Node && p2p 2 SEND 4 2 1 | enc Node ;;
    4) p2p 1 RECV 0 2 | enc Node && p2p 2 SEND 0 1 1 | enc Node ;;
    *) echo 'id: 1 name: "comp" type: COMP_NODE duration_micros: 1' | enc Node ;;
    esac
  } >"$out/hang/deadlock.$r.et"
done
for np in 2 4; do
  "${limit[@]}" "${mpirun[@]}" -np "$np" "$runner" --workload-configuration="$out/hang/deadlock" \
    --system-configuration="$RING" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --backend=roce --hang-ns=100000 --mpi=1 --partition=block --progress-seconds=0 \
    --output-dir="$out/hang/np$np" >"$out/hang/np$np.out" 2>&1
  st=$?
  echo "[distributed] hang np=$np: status $st; $(grep -c 'waits on' "$out/hang/np$np.out") 'waits on' lines"
  [ "$st" -eq 2 ] || bad "hang np=$np: status $st, expected 2"
  for m in "2 of 8 NPU(s) unfinished" "deadlock" "NPU 0 waits on 1 node(s)" \
    "COMM_RECV from NPU 4 tag 1" "NPU 4 waits on 1 node(s)" "COMM_RECV from NPU 0 tag 2"; do
    grep -qF "$m" "$out/hang/np$np.out" || bad "hang np=$np: no '$m' in the output"
  done
done

# --- an input error on one rank: rank 1 cannot write its part of the fabric's files (a file
# stands where its folder goes); it stops every rank with its message and status 1
mkdir -p "$out/one-rank-error/out"
: >"$out/one-rank-error/out/.rank-1"
"${limit[@]}" "${mpirun[@]}" -np 2 "$runner" \
  --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" --system-configuration="$RING" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=roce --mpi=1 \
  --partition=block --progress-seconds=0 --output-dir="$out/one-rank-error/out" \
  >"$out/one-rank-error/np2.out" 2>&1
st=$?
echo "[distributed] input error on rank 1: status $st"
[ "$st" -eq 1 ] || bad "input error on rank 1: status $st, expected 1"
grep -qF "cannot open output file '$out/one-rank-error/out/.rank-1/" "$out/one-rank-error/np2.out" ||
  bad "input error on rank 1: its message is not shown"

# --- --plots on rank 0 draws from the gathered files (the data files whether or not gnuplot
# is installed)
"${limit[@]}" "${mpirun[@]}" -np 2 "$runner" --workload-configuration="$out/a2a1m.txt" \
  --system-configuration="$out/direct.json" --network-configuration="$out/clos24.yml" \
  --backend=roce --ns3::SwitchMmu::BufferSize=2000000 --mpi=1 --partition=block \
  --progress-seconds=0 --plots=1 --output-dir="$out/plots" >"$out/plots.out" 2>&1
st=$?
echo "[distributed] --plots np=2: status $st; $(grep '^plots:' "$out/plots.out")"
[ "$st" -eq 0 ] && grep -q '^plots: ' "$out/plots.out" && [ -s "$out/plots/queue.dat" ] &&
  [ -s "$out/plots/rate.dat" ] && [ -s "$out/plots/timeline.dat" ] ||
  bad "--plots np=2: no plot data on rank 0"

# --- --mpi with another backend is an input error (status 1)
"${limit[@]}" "${mpirun[@]}" -np 2 "$runner" --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=analytical \
  --mpi=1 >"$out/analytical.out" 2>&1
st=$?
if [ "$st" -ne 1 ] || ! grep -q "packet-level backend" "$out/analytical.out"; then
  bad "--mpi with --backend=analytical was not refused with status 1 (status $st)"
fi

# --- ns-3's automatic random stream numbering depends on the partition: refused with --mpi
"${limit[@]}" "${mpirun[@]}" -np 2 "$runner" --workload-configuration="$MB/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$RING" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" --backend=roce \
  --mpi=1 --rng-stream=-1 --output-dir="$out/rng-auto" >"$out/rng-auto.out" 2>&1
st=$?
if [ "$st" -ne 1 ] || ! grep -q "needs a first stream number" "$out/rng-auto.out"; then
  bad "--rng-stream=-1 with --mpi was not refused with status 1 (status $st)"
fi

# --- refused features (status 1, never a crash): in-network aggregation (an in_switch
# dimension), remote memory on the network, a gate latency shorter than the cut's delay
cat >"$out/clos16-inswitch.yml" <<'EOF'
topology: [ Clos ]
npus_count: [ 16 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 4 ]
in_switch: [ 1 ]
EOF
cat >"$out/per-npu-memory.json" <<'EOF'
{"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 500, "remote-mem-bw": 100}
EOF
REMOTE_MEM=$out/per-npu-memory.json
refused() {
  local what=$1 expect=$2
  shift 2
  "${limit[@]}" "${mpirun[@]}" -np 2 "$@" --mpi=1 --output-dir="$out/refused" >"$out/refused.out" 2>&1
  local st=$?
  if [ "$st" -ne 1 ] || ! grep -q "$expect" "$out/refused.out"; then
    bad "$what was not refused with status 1 and '$expect' (status $st): $(grep -m2 -i 'error\|signal' "$out/refused.out")"
  else
    echo "[distributed] $what: status 1, '$expect'"
  fi
}
refused "in-network aggregation with --mpi" "do not carry in-network aggregation" \
  "$runner" --workload-configuration="$MB/all_reduce/16npus_1MB/all_reduce" \
  --system-configuration="$RING" --network-configuration="$out/clos16-inswitch.yml" \
  --backend=roce --partition=leaf
refused "remote memory with --mpi" "do not carry remote memory" \
  "$training" --remote-memory-configuration="$REMOTE_MEM"
refused "a gate latency below the cut's delay" "is shorter than the smallest delay" \
  "$training" --gate-latency-ns=500

if [ "$fail" -ne 0 ]; then
  echo "[distributed] FAILED (outputs in $out)" >&2
  exit 1
fi
echo "[distributed] passed: the exact cases give the single-process bytes, the ties cases' differences are listed above (outputs in $out)"
