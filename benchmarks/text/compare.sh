#!/usr/bin/env bash
# Texts per second of kiln's text pipeline against tf.data's on the same text folder (read, batch
# of 32, TextVectorization to 64 ids), 2 threads each, in one run, alternating the two so both see
# the same machine load. Each program runs `epochs` epochs; the first (warm-up, file cache) is
# dropped and the median of the rest is reported, with kiln's throughput over tf.data's. Usage:
#   benchmarks/text/compare.sh [text_dir] [build_dir] [epochs] [rounds]
# Without the folder, example_text_folders writes the fortunes (3000 a language) to
# /tmp/kiln_fortunes_text first. The reference needs pip's tensorflow-cpu; kiln itself does not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/tmp/kiln_fortunes_text}
build_dir=${2:-$here/../../build}
epochs=${3:-4}
rounds=${4:-2}
export OMP_NUM_THREADS=2 TF_CPP_MIN_LOG_LEVEL=3

[[ -d $dir ]] || "$build_dir/apps/example_text_folders" "$dir" --limit 3000 > /dev/null

# Texts per second of every epoch but the first.
rates() { grep '^epoch' | tail -n +2 | sed 's/.*, \([0-9.]*\) texts\/s/\1/'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

kiln=() tf=()
for ((r = 0; r < rounds; ++r)); do
  kiln+=($("$build_dir/benchmarks/text_pipeline" "$dir" "$epochs" 2 | rates))
  tf+=($(python3 "$here/tf_text_pipeline.py" "$dir" "$epochs" 2>/dev/null | rates))
done
k=$(printf '%s\n' "${kiln[@]}" | median)
t=$(printf '%s\n' "${tf[@]}" | median)
awk -v k="$k" -v t="$t" 'BEGIN {
  printf "| pipeline (2 threads) | texts/s | kiln / it |\n| --- | --- | --- |\n"
  printf "| kiln text_dataset + TextVectorization | %.0f | 1.00x |\n", k
  printf "| tf.data text_dataset_from_directory + TextVectorization | %.0f | %.2fx |\n", t, k / t
}'
