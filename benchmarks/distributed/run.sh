#!/usr/bin/env bash
# Data-parallel figures on this machine, one run: all-reduce bandwidth (kiln's communicator and
# op against MPI_Allreduce called directly) as 2 ranks, then the CNN epoch as 1 process and as 2
# (one thread per rank), with gradient overlap on and off; rounds alternate, medians reported.
# Usage: benchmarks/distributed/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build} rounds=${2:-3}
mpi=(mpirun --allow-run-as-root --bind-to core)
export OMP_NUM_THREADS=1

echo "== all-reduce, 2 ranks (float32 sum) =="
"${mpi[@]}" -np 2 "$build/benchmarks/allreduce_bandwidth"

echo "== CNN epoch (7680 images, global batch 128), one thread per rank =="
declare -A times
for ((r = 0; r < rounds; ++r)); do
  for config in "1 on" "2 on" "2 off"; do
    read -r np overlap <<< "$config"
    flag=$([[ $overlap == off ]] && echo --no-overlap || true)
    s=$("${mpi[@]}" -np "$np" "$build/benchmarks/cnn_epoch" $flag | awk '{print $NF}')
    times[$np-$overlap]+="$s "
  done
done
median() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
one=$(median "${times[1-on]}") on=$(median "${times[2-on]}") off=$(median "${times[2-off]}")
echo "1 process:                 ${one}s"
echo "2 processes, overlap on:  ${on}s  speedup $(awk -v a="$one" -v b="$on" 'BEGIN{printf "%.2f", a/b}')x"
echo "2 processes, overlap off: ${off}s  speedup $(awk -v a="$one" -v b="$off" 'BEGIN{printf "%.2f", a/b}')x"
