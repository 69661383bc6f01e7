#!/usr/bin/env bash
# Images per second of kiln's image pipeline against tf.data and PyTorch's DataLoader on the same
# folder of JPEGs, 2 threads each (decode + resize to 180 x 180 + random flip + batch of 32), in
# one run, alternating the three so all see the same machine load. Each program runs `epochs`
# epochs; the first (warm-up, file cache) is dropped and the median of the rest is reported, with
# kiln's throughput over each reference's. Usage:
#   benchmarks/images/compare.sh [jpeg_dir] [build_dir] [epochs] [rounds]
# Without the folder, make_jpeg_folder.py writes 3000 JPEGs to /tmp/kiln_jpegs first. The
# references need pip's tensorflow-cpu, torch and torchvision; kiln itself needs none of them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/tmp/kiln_jpegs}
build_dir=${2:-$here/../../build}
epochs=${3:-4}
rounds=${4:-2}
export OMP_NUM_THREADS=2 TF_CPP_MIN_LOG_LEVEL=3

[[ -d $dir ]] || python3 "$here/make_jpeg_folder.py" "$dir"

# Images per second of every epoch but the first.
rates() { grep '^epoch' | tail -n +2 | sed 's/.*, \([0-9.]*\) images\/s/\1/'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

kiln=() tf=() torch=()
for ((r = 0; r < rounds; ++r)); do
  kiln+=($("$build_dir/benchmarks/image_pipeline" "$dir" "$epochs" 2 | rates))
  tf+=($(python3 "$here/tf_data_pipeline.py" "$dir" "$epochs" 2>/dev/null | rates))
  torch+=($(python3 "$here/torch_pipeline.py" "$dir" "$epochs" | rates))
done
k=$(printf '%s\n' "${kiln[@]}" | median)
t=$(printf '%s\n' "${tf[@]}" | median)
p=$(printf '%s\n' "${torch[@]}" | median)
awk -v k="$k" -v t="$t" -v p="$p" 'BEGIN {
  printf "| pipeline (2 threads) | images/s | kiln / it |\n| --- | --- | --- |\n"
  printf "| kiln image_dataset + RandomFlip | %.0f | 1.00x |\n", k
  printf "| tf.data image_dataset_from_directory + RandomFlip | %.0f | %.2fx |\n", t, k / t
  printf "| PyTorch DataLoader (2 workers) | %.0f | %.2fx |\n", p, k / p
}'
