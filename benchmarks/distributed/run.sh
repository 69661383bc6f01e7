#!/usr/bin/env bash
# Data-parallel figures on this machine, one run: all-reduce bandwidth (kiln's communicator and
# op against MPI_Allreduce called directly) as 2 ranks, then the CNN epoch as 1 process and as 2
# (one thread per rank), with gradient overlap on and off, in one bucket and in buckets of 128 KB,
# and as MirroredStrategy's two replica threads in one process; predict over the same images as 1
# process and as the two threads; rounds alternate, medians reported. Last, the all-reduce's cost
# on one device (collective_overhead).
# Usage: benchmarks/distributed/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build} rounds=${2:-3}
mpi=(mpirun --allow-run-as-root --bind-to core)
export OMP_NUM_THREADS=1

echo "== all-reduce, 2 ranks (float32 sum) =="
"${mpi[@]}" -np 2 "$build/benchmarks/allreduce_bandwidth"

echo "== CNN epoch (7680 images, global batch 128), one thread per rank =="
declare -A times predicts
# "... epoch_seconds E predict_seconds P" -> "E P"
figures() { awk '{for (i = 1; i < NF; ++i) if ($i ~ /_seconds$/) printf "%s ", $(i + 1); print ""}'; }
for ((r = 0; r < rounds; ++r)); do
  for config in "1 on 0" "2 on 0" "2 off 0" "2 on 128" "2 off 128" "threads on 0" \
                "threads off 0"; do
    read -r np overlap kb <<< "$config"
    flags=(--bucket-kb="$kb")
    [[ $overlap == off ]] && flags+=(--no-overlap)
    if [[ $np == threads ]]; then
      out=$("$build/benchmarks/cnn_epoch" --mirrored=cpu,cpu "${flags[@]}" | figures)
    else
      out=$("${mpi[@]}" -np "$np" "$build/benchmarks/cnn_epoch" "${flags[@]}" | figures)
    fi
    read -r s p <<< "$out"
    times[$np-$overlap-$kb]+="$s "
    # Predict is split only by MirroredStrategy's threads: against one process.
    if [[ $np != 2 ]]; then predicts[$np]+="$p "; fi
  done
done
median() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
one=$(median "${times[1-on-0]}")
echo "1 process: ${one}s"
for config in "on 0" "off 0" "on 128" "off 128"; do
  read -r overlap kb <<< "$config"
  t=$(median "${times[2-$overlap-$kb]}")
  bucket=$([[ $kb == 0 ]] && echo "one bucket" || echo "${kb} KB buckets")
  echo "2 processes, overlap $overlap, $bucket: ${t}s speedup $(awk -v a="$one" -v b="$t" 'BEGIN{printf "%.2f", a/b}')x"
done
for overlap in on off; do
  t=$(median "${times[threads-$overlap-0]}")
  echo "mirrored, 2 threads, overlap $overlap: ${t}s speedup $(awk -v a="$one" -v b="$t" 'BEGIN{printf "%.2f", a/b}')x"
done
alone=$(median "${predicts[1]}") split=$(median "${predicts[threads]}")
echo "predict: 1 process ${alone}s, mirrored 2 threads ${split}s speedup $(awk -v a="$alone" -v b="$split" 'BEGIN{printf "%.2f", a/b}')x"

echo "== the gradient all-reduce on one device (CNN step, batch 128) =="
"$build/benchmarks/collective_overhead" --device cpu --steps 20 --rounds "$rounds"
