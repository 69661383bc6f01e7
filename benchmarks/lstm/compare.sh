#!/usr/bin/env bash
# LSTM training time per 1000 sequences: kiln (padded per batch, bucketed) against PyTorch
# (padded per batch, packed) in one run on 2 threads, and kiln bucketed / PyTorch padded.
# Usage: benchmarks/lstm/compare.sh [build_dir] [sequences] [epochs]
# Needs torch for the reference (pip install torch); kiln itself never does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=${1:-$here/../../build}
sequences=${2:-4000}
epochs=${3:-3}
export OMP_NUM_THREADS=2

kiln=$("$build_dir/benchmarks/lstm_epoch" --sequences "$sequences" --epochs "$epochs")
torch_padded=$(python3 "$here/pytorch_lstm.py" --sequences "$sequences" --epochs "$epochs")
torch_packed=$(python3 "$here/pytorch_lstm.py" --sequences "$sequences" --epochs "$epochs" --packed)
printf '%s\n%s\n%s\n' "$kiln" "$torch_padded" "$torch_packed"
per_1000() { grep "^$1" | sed 's/.*s\/1000 sequences //'; }
awk -v k="$(printf '%s\n' "$kiln" | per_1000 'kiln bucketed')" \
    -v t="$(printf '%s\n' "$torch_padded" | per_1000 'pytorch padded')" \
    'BEGIN {printf "kiln bucketed / PyTorch padded: %.2fx\n", k / t}'
