#!/usr/bin/env bash
# Epoch time of kiln's MLP and CNN examples against PyTorch doing the same work (same data,
# model, Adam, batch 128, 2 threads), in one run, alternating the two so both see
# the same machine load. Reports the median and the fastest epoch (the first, with tracing or
# warm-up, excluded) and kiln / PyTorch for each: other tenants only ever add time, so the fastest
# epochs are the least disturbed. Usage:
#   benchmarks/fashion_mnist/compare.sh [build_dir] [epochs] [rounds] [dtype_policy]
# dtype_policy mixed_bfloat16 runs kiln under that policy and PyTorch under
# torch.autocast("cpu", dtype=torch.bfloat16), and adds kiln's float32 epoch for the speed-up.
# Needs torch for the reference (pip install torch); kiln itself never does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=${1:-$here/../../build}
epochs=${2:-3}
rounds=${3:-2}
policy=${4:-float32}
export OMP_NUM_THREADS=2

# The epoch times a run printed, without its first epoch.
later_epochs() { grep '^epoch seconds:' | cut -d: -f2 | tr ' ' '\n' | grep . | tail -n +2; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for model in mlp cnn; do
  kiln_times=() torch_times=() f32_times=()
  for ((r = 0; r < rounds; ++r)); do
    kiln_times+=($("$build_dir/apps/example_$model" --epochs "$epochs" --dtype-policy "$policy" |
                   later_epochs))
    torch_times+=($(python3 "$here/pytorch_epochs.py" --model "$model" --epochs "$epochs" \
                      --dtype-policy "$policy" | later_epochs))
    if [[ $policy != float32 ]]; then
      f32_times+=($("$build_dir/apps/example_$model" --epochs "$epochs" | later_epochs))
    fi
  done
  kiln=$(printf '%s\n' "${kiln_times[@]}" | median)
  torch=$(printf '%s\n' "${torch_times[@]}" | median)
  kiln_best=$(printf '%s\n' "${kiln_times[@]}" | sort -g | head -1)
  torch_best=$(printf '%s\n' "${torch_times[@]}" | sort -g | head -1)
  awk -v m="$model $policy" -v k="$kiln" -v t="$torch" -v kb="$kiln_best" -v tb="$torch_best" 'BEGIN {
    printf "%s median: kiln %.2f s/epoch, PyTorch %.2f s/epoch, kiln/PyTorch %.2fx\n", m, k, t, k / t
    printf "%s fastest: kiln %.2f s/epoch, PyTorch %.2f s/epoch, kiln/PyTorch %.2fx\n", m, kb, tb, kb / tb
  }'
  if [[ $policy != float32 ]]; then
    f32=$(printf '%s\n' "${f32_times[@]}" | median)
    awk -v m="$model" -v k="$kiln" -v f="$f32" 'BEGIN {
      printf "%s median: kiln float32 %.2f s/epoch, %s/float32 %.2fx\n", m, f, "'"$policy"'", k / f
    }'
  fi
done
