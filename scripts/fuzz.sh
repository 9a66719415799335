#!/usr/bin/env bash
# Runs the libFuzzer harnesses of fuzz/ (doc/testing.rst), one after the other.
#
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DASTRA_FUZZ=ON \
#       -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only"
#   cmake --build build-fuzz -j2
#   scripts/fuzz.sh build-fuzz 600                   # every harness, 10 minutes each
#   scripts/fuzz.sh build-fuzz 60 fuzz-chakra         # one harness
#
# Seeds: the reference inputs of ../shared/reference and the files of fuzz/corpus
# (a harness whose first byte chooses a parser gets the reference files with that
# byte in front). The growing corpus is kept in BUILD/fuzz/corpus-HARNESS, logs in
# BUILD/fuzz/HARNESS.log, a crashing / leaking / slow input in BUILD/fuzz/artifacts.
# Exit status 1 when a harness reports a finding. Environment: FUZZ_JOBS_ARGS adds
# libFuzzer options.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?build dir (configured with -DASTRA_FUZZ=ON)}" && pwd)
seconds=${2:-60}
shift 2 2>/dev/null || shift $#
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(fuzz-chakra fuzz-config fuzz-text-workload fuzz-config-txt)
R=$here/../shared/reference
work=$build/fuzz
mkdir -p "$work/artifacts"

# seed files of a harness into DIR (with an optional selector byte in front)
seed() { # dir, selector-octal-or-empty, files...
  local dir=$1 sel=$2
  shift 2
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    local name
    name=seed-$(printf '%s' "$sel$f" | md5sum | cut -c1-16)
    if [ -n "$sel" ]; then
      { printf "\\$sel"; cat "$f"; } >"$dir/$name"
    else
      cp "$f" "$dir/$name"
    fi
  done
}

seeds() { # harness -> fills $work/seeds-HARNESS
  local h=$1 dir=$work/seeds-$1
  rm -rf "$dir"
  mkdir -p "$dir"
  case $h in
  fuzz-chakra)
    # one rank of every reference trace set (the small ones whole, the GPT trace too)
    local f
    while IFS= read -r f; do seed "$dir" "" "$f"; done < <(
      find "$R" -name '*.0.et' -o -name '*.3.et' | sort)
    ;;
  fuzz-config)
    seed "$dir" 000 $(find "$R" -name '*.json' -path '*system*' | sort) \
      $(find "$R" -name '*_sys.json' | sort)
    seed "$dir" 001 $(find "$R" \( -name '*.yml' -o -name '*.yaml' \) | sort)
    seed "$dir" 002 $(find "$R" -name 'RemoteMemory.json' -o -name 'no_memory_expansion.json' | sort)
    seed "$dir" 004 $(find "$R" -name 'sample_*nodes*.json' -o -name 'logical_*nodes*.json' | sort)
    cp "$here"/fuzz/corpus/config/* "$dir"/
    ;;
  fuzz-text-workload)
    seed "$dir" "" $(find "$R" -name '*.txt' -path '*text_workloads*' | sort)
    ;;
  fuzz-config-txt)
    cp "$here"/fuzz/corpus/config-txt/* "$dir"/
    ;;
  esac
}

status=0
for h in "${harnesses[@]}"; do
  bin=$build/$h
  [ -x "$bin" ] || { echo "[fuzz] $bin missing (configure with -DASTRA_FUZZ=ON)"; status=1; continue; }
  seeds "$h"
  corpus=$work/corpus-$h
  mkdir -p "$corpus"
  log=$work/$h.log
  echo "[fuzz] $h: $seconds s, seeds $(ls "$work/seeds-$h" | wc -l), corpus $(ls "$corpus" | wc -l)"
  start=$(date +%s)
  # -timeout: a single input running longer is a finding (a hang)
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$bin" "$corpus" "$work/seeds-$h" -max_total_time="$seconds" -timeout=30 \
    -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$h-" ${FUZZ_JOBS_ARGS:-} >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  echo "[fuzz] $h: exit $rc after $secs s, ${execs:-?} executions, ${cov:-no coverage line}, corpus $(ls "$corpus" | wc -l) inputs"
  if [ $rc -ne 0 ]; then
    status=1
    echo "[fuzz] $h: finding; the log ends:"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written|uncaught|terminate' "$log" | head -20
  fi
done
exit $status
