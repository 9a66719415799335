#!/usr/bin/env bash
# Distributed-run benchmark: astra-sim-runner of an ns-3 tree built with --enable-mpi
# (scripts/check-in-tree.sh) as a plain process, under mpirun -np 1 and -np 2; median of
# REPS runs each under /usr/bin/time -v. Prints wall (mpirun's for the ranks), events/s
# and the synchronisation wait share per rank, peak RSS (per rank), the speed-up against
# the plain process, and checks that stdout and the report files are identical.
#
# Usage: scripts/bench-distributed.sh NS3_TREE [--case=2d|clos128] [--reps=3] [--out=DIR]
#                                              [--nps="1 2"]
#   2d       (default) the runner equivalent of roce-bench --cases=2d --npus=256: a 64 MiB
#            all-reduce on 8 x 32 NPUs (scale-up Switch of 8 at 100 GB/s, 250 ns; scale-out
#            Switch of 32 at 400 Gbit/s, 1000 ns), ring per dimension, 4 splits, one active
#            chunk, localBWAware, MTU 4096, 64 MiB switch buffers, an ACK per packet;
#            --partition=scale-up (a server's 8 NPUs with their NVSwitch on one rank)
#   clos128  a 4 MiB ring all-reduce on a 128-NPU leaf-spine (8 leaves of 16, 8 spines,
#            50 GB/s, 500 ns); --partition=leaf
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=${1:?usage: scripts/bench-distributed.sh NS3_TREE [--case=2d|clos128] [--reps=N]}
shift
case_name=2d
reps=3
out=
nps="1 2"
for a in "$@"; do
  case $a in
    --case=*) case_name=${a#--case=} ;;
    --reps=*) reps=${a#--reps=} ;;
    --out=*) out=${a#--out=} ;;
    --nps=*) nps=${a#--nps=} ;;
    *) echo "bench-distributed: unknown option '$a'" >&2; exit 1 ;;
  esac
done
out=${out:-$(mktemp -d)}
mkdir -p "$out"
runner=$(ls "$tree"/build/contrib/astra-sim/ns3.37-astra-sim-runner-* 2>/dev/null | head -1)
[ -x "$runner" ] || { echo "bench-distributed: no astra-sim-runner in $tree/build" >&2; exit 1; }
export LD_LIBRARY_PATH="$tree/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sys=$here/../shared/reference/astra-sim/examples/system/native_collectives/Ring_4chunks.json
mpirun=(mpirun --allow-run-as-root --oversubscribe)

case $case_name in
  2d)
    # roce-bench: up 100 GB/s (GB = 2^30 B); out 400 Gbit/s = 400e9 / 8 / 2^30 GB/s
    cat >"$out/net.yml" <<'YML'
topology: [ Switch, Switch ]
npus_count: [ 8, 32 ]
bandwidth: [ 100.0, 46.566128730773926 ]
latency: [ 250.0, 1000.0 ]
YML
    printf 'DATA\n1\nar -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 67108864 0\n' >"$out/workload.txt"
    partition=scale-up
    extra=(--ns3::RdmaHostStack::Mtu=4096 --ns3::SwitchMmu::BufferSize=67108864
           --ns3::RdmaHostStack::AckInterval=1)
    ;;
  clos128)
    cat >"$out/net.yml" <<'YML'
topology: [ Clos ]
npus_count: [ 128 ]
bandwidth: [ 50.0 ]
latency: [ 500.0 ]
hosts_per_leaf: [ 16 ]
spines: [ 8 ]
YML
    printf 'DATA\n1\nar -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 4194304 0\n' >"$out/workload.txt"
    partition=leaf
    extra=()
    ;;
  *) echo "bench-distributed: unknown case '$case_name' (2d, clos128)" >&2; exit 1 ;;
esac
args=(--workload-configuration="$out/workload.txt" --system-configuration="$sys"
      --network-configuration="$out/net.yml" --backend=roce --progress-seconds=0 "${extra[@]}")

clean() { grep -v -E 'wall|elapsed|events/s|RSS|seconds|progress:|^\[' ; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# /usr/bin/time -v field of a file (one line per process)
field() { grep -h "$1" "$2" | sed 's/.*: //'; }

fail=0
declare -A wall
for mode in plain $(for n in $nps; do echo np$n; done); do
  for r in $(seq 1 "$reps"); do
    d=$out/$mode.$r
    mkdir -p "$d"
    if [ "$mode" = plain ]; then
      /usr/bin/time -v -o "$d/time" "$runner" "${args[@]}" --fabric-outputs=0 \
        --output-dir="$d/reports" >"$d/out" 2>"$d/err"
      st=$?
    else
      n=${mode#np}
      t0=$(date +%s.%N)
      "${mpirun[@]}" -np "$n" sh -c '/usr/bin/time -v -o "$0/time.$OMPI_COMM_WORLD_RANK" "$@"' \
        "$d" "$runner" "${args[@]}" --mpi=1 --partition=$partition --fabric-outputs=0 \
        --output-dir="$d/reports" >"$d/out" 2>"$d/err"
      st=$?
      t1=$(date +%s.%N)
      echo "$t1 - $t0" | bc >"$d/mpirun-wall"
    fi
    echo "status $st" >>"$d/out"
    [ "$st" -eq 0 ] || { echo "bench-distributed: $mode run $r ended with status $st" >&2; fail=1; }
    if [ "$mode.$r" != plain.1 ]; then
      diff <(clean <"$out/plain.1/out") <(clean <"$d/out") >"$d/stdout.diff" ||
        { echo "bench-distributed: stdout of $mode run $r differs (see $d/stdout.diff)" >&2; fail=1; }
      diff -r "$out/plain.1/reports" "$d/reports" >"$d/files.diff" ||
        { echo "bench-distributed: report files of $mode run $r differ" >&2; fail=1; }
    fi
  done
  # wall: the plain process's elapsed time; under mpirun, mpirun's (start-up included)
  if [ "$mode" = plain ]; then
    w=$(for r in $(seq 1 "$reps"); do
      field "Elapsed (wall clock)" "$out/plain.$r/time" |
        awk -F: '{s=0; for(i=1;i<=NF;i++) s=s*60+$i; print s}'
    done | median)
  else
    w=$(cat "$out"/$mode.*/mpirun-wall | median)
  fi
  wall[$mode]=$w
done

echo "bench-distributed: case $case_name, median of $reps; outputs in $out"
pw=${wall[plain]}
ev=$(grep -h '^wall .* events ' "$out/plain.1/out" | sed 's/.*events \([0-9]*\).*/\1/')
runw=$(for r in $(seq 1 "$reps"); do grep -h '^wall ' "$out/plain.$r/out" | awk '{print $2}'; done | median)
rss=$(for r in $(seq 1 "$reps"); do field "Maximum resident" "$out/plain.$r/time"; done | median)
printf '  plain     wall %7.2f s (run %.3f s); events %s, events/s %.0f; peak RSS %.1f MiB\n' \
  "$pw" "$runw" "$ev" "$(echo "$ev / $runw" | bc -l)" "$(echo "$rss/1024" | bc -l)"
for n in $nps; do
  m=np$n
  printf '  -np %-5s wall %7.2f s (mpirun), speed-up %.2fx vs plain\n' "$n" "${wall[$m]}" \
    "$(echo "$pw / ${wall[$m]}" | bc -l)"
  # the run whose mpirun wall is the median: its per-rank lines and RSS
  med=$(for r in $(seq 1 "$reps"); do echo "$(cat "$out/$m.$r/mpirun-wall") $r"; done |
    sort -g | awk '{v[NR]=$2} END {print v[int((NR+1)/2)]}')
  grep -h '^rank' "$out/$m.$med/err" | sed 's/^/      /'
  for k in $(seq 0 $((n - 1))); do
    printf '      rank %d peak RSS %.1f MiB\n' "$k" \
      "$(echo "$(field "Maximum resident" "$out/$m.$med/time.$k")/1024" | bc -l)"
  done
done
if [ "$fail" -ne 0 ]; then
  echo "bench-distributed: FAILED (outputs in $out)" >&2
  exit 1
fi
echo "bench-distributed: every run gives the plain process's results"
