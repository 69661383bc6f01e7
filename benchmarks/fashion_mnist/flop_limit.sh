#!/usr/bin/env bash
# The MLP example's epoch time against its FLOP limit: the multiply-adds one epoch must do
# (forward, every weight gradient, the input gradients of all but the first layer) at oneDNN's
# fp32 GEMM rate on the MLP's largest product (128x784 by 784x512, from matmul_bench), the two
# measured alternately in one run. Usage: benchmarks/fashion_mnist/flop_limit.sh [build_dir] [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=${1:-$here/../../build}
rounds=${2:-2}
export OMP_NUM_THREADS=2

# 784-512-256-10 over 60000 images: 2 FLOPs per multiply-add, three products per weight except
# the first layer's input gradient.
flops=$(awk 'BEGIN {
  fwd = 784 * 512 + 512 * 256 + 256 * 10
  printf "%.0f", 60000 * 2 * (3 * fwd - 784 * 512)
}')

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

epochs=() rates=()
for ((r = 0; r < rounds; ++r)); do
  epochs+=($("$build_dir/apps/example_mlp" --epochs 3 | grep '^epoch seconds:' | cut -d: -f2 |
             tr ' ' '\n' | grep . | tail -n +2))
  rates+=($("$build_dir/benchmarks/matmul_bench" \
              --benchmark_filter='BM_DirectSgemmMlpStep/128/784/512/0/0' --benchmark_min_time=1 2>/dev/null |
            grep -o 'GFLOP/s=[0-9.]*' | cut -d= -f2))
done
epoch=$(printf '%s\n' "${epochs[@]}" | median)
rate=$(printf '%s\n' "${rates[@]}" | median)
awk -v e="$epoch" -v r="$rate" -v f="$flops" 'BEGIN {
  limit = f / (r * 1e9)
  printf "mlp: %.1f GFLOP/epoch at %.0f GFLOP/s = %.3f s; kiln %.3f s/epoch = %.2fx the limit\n",
         f / 1e9, r, limit, e, e / limit
}'
