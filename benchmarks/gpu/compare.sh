#!/usr/bin/env bash
# kiln against PyTorch (eager and torch.compile(mode="reduce-overhead")) on one GPU: the MLP, CNN
# and LSTM tasks at batch 128 and 1024, float32 and mixed_bfloat16, each run alternately in the
# same session (the machine is shared), then a table of ms/step and kiln's ratios.
#   benchmarks/gpu/compare.sh [step_time binary] [steps] [rounds]
# Needs python3 with torch; finds cuDNN and the rest as scripts/gpu-test does (scripts/gpu-env).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/gpu-env"
kiln=${1:-$here/../../build/benchmarks/step_time}
steps=${2:-200}
rounds=${3:-5}
device=${KILN_BENCH_DEVICE:-cuda:0}

ms() { sed -n 's/.*ms\/step \([0-9.]*\).*/\1/p'; }

printf '%-5s %5s %-15s %10s %10s %10s %9s %9s\n' model batch precision kiln_ms eager_ms \
  compile_ms vs_eager vs_compile
for model in mlp cnn lstm; do
  for batch in 128 1024; do
    for precision in float32 mixed_bfloat16; do
      common=(--model "$model" --batch "$batch" --precision "$precision" --steps "$steps"
              --rounds "$rounds")
      k=$("$kiln" "${common[@]}" --device "$device" 2>/dev/null | ms)
      e=$(python3 "$here/pytorch_steps.py" "${common[@]}" --device cuda --mode eager | ms)
      c=$(python3 "$here/pytorch_steps.py" "${common[@]}" --device cuda --mode compile \
            2>/dev/null | ms || echo nan)
      printf '%-5s %5s %-15s %10s %10s %10s %9s %9s\n' "$model" "$batch" "$precision" "$k" "$e" \
        "$c" "$(python3 -c "print(f'{$k/$e:.2f}x')")" \
        "$(python3 -c "print(f'{$k/$c:.2f}x' if '$c' != 'nan' else 'n/a')")"
    done
  done
done
