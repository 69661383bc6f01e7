#!/usr/bin/env bash
# kiln against PyTorch on one GPU, as one bounded stage of the GPU checks (scripts/gpu-steps):
# the MLP, CNN and LSTM training steps at batch 128 and 1024 in float32, kiln's then PyTorch
# eager's (both in exact float32: PyTorch's default TF32 convolutions are turned off); then,
# while the stage's time lasts, both with TF32 allowed at batch 1024,
# torch.compile(mode="reduce-overhead") and the float32 pairs in mixed_bfloat16. Each measurement is a step of its own: one that fails or runs out of time
# reads FAILED or TIMEOUT in the table, and the others still run.
#   benchmarks/gpu/compare.sh [step_time binary]
# Environment: KILN_BENCH_LIMIT_S (the stage, default 240), KILN_BENCH_STEPS (batches an epoch,
# 50), KILN_BENCH_ROUNDS (timed epochs, 3), KILN_BENCH_DEVICE (cuda:0). Needs python3 with torch;
# kiln's program finds cuDNN and the rest through scripts/gpu-env.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/gpu-env"
source "$here/../../scripts/gpu-steps"
kiln=${1:-$here/../../build/benchmarks/step_time}
steps=${KILN_BENCH_STEPS:-50}
rounds=${KILN_BENCH_ROUNDS:-3}
device=${KILN_BENCH_DEVICE:-cuda:0}
models=(mlp cnn lstm)
batches=(128 1024)

declare -A ms  # "model batch precision runner" -> ms/step, or the step's result when it has none

# measure MODEL BATCH PRECISION RUNNER: one epoch-timing run of kiln or PyTorch.
measure() {
  local model=$1 batch=$2 precision=$3 runner=$4
  local common=(--model "$model" --batch "$batch" --precision "$precision" --steps "$steps"
                --rounds "$rounds")
  local name=${runner}_${model}_${batch}_${precision}
  if [[ $runner == kiln ]]; then
    step "$name" 60 --note 'ms/step' -- with_kiln_libs "$kiln" "${common[@]}" --device "$device"
  else
    step "$name" 90 --note 'ms/step' -- \
      python3 "$here/pytorch_steps.py" "${common[@]}" --device cuda --mode "$runner"
  fi
  local value
  value=$(sed -n 's/.*ms\/step \([0-9.]*\).*/\1/p' "$KILN_STEP_LOGS/$name.log" | tail -n 1)
  [[ $KILN_STEP_RESULT == ok ]] && KILN_STEP_RESULT=no-figure
  ms["$model $batch $precision $runner"]=${value:-$KILN_STEP_RESULT}
}

ratio() {
  python3 -c "import sys; a, b = sys.argv[1:]
try: print(f'{float(a) / float(b):.2f}x')
except ValueError: print('n/a')" "$1" "$2"
}

table() {
  printf '%-5s %5s %-15s %10s %10s %10s %9s %9s\n' model batch precision kiln_ms eager_ms \
    compile_ms vs_eager vs_compile
  local model batch precision
  for precision in float32 tf32 mixed_bfloat16; do
    for model in "${models[@]}"; do
      for batch in "${batches[@]}"; do
        local k=${ms["$model $batch $precision kiln"]:-n/a}
        local e=${ms["$model $batch $precision eager"]:-n/a}
        local c=${ms["$model $batch $precision compile"]:-n/a}
        [[ $k == n/a && $e == n/a ]] && continue
        printf '%-5s %5s %-15s %10s %10s %10s %9s %9s\n' "$model" "$batch" "$precision" "$k" \
          "$e" "$c" "$(ratio "$k" "$e")" "$(ratio "$k" "$c")"
      done
    done
  done
}

# Optional passes start only with this much of the stage left: one pass takes about that long.
has_time_for_pass() {
  (($(stage_seconds_left) > ${1:-60}))
}

stage_begin bench "${KILN_BENCH_LIMIT_S:-240}"
for model in "${models[@]}"; do
  for batch in "${batches[@]}"; do
    measure "$model" "$batch" float32 kiln
    measure "$model" "$batch" float32 eager
  done
done
# TF32 where it can pay, the largest batch.
if has_time_for_pass 60; then
  for model in "${models[@]}"; do
    has_time_for_pass 20 || continue
    measure "$model" "${batches[-1]}" tf32 kiln
    measure "$model" "${batches[-1]}" tf32 eager
  done
fi
if has_time_for_pass 90; then
  for model in "${models[@]}"; do
    for batch in "${batches[@]}"; do
      has_time_for_pass 30 && measure "$model" "$batch" float32 compile
    done
  done
fi
if has_time_for_pass 60; then
  for model in "${models[@]}"; do
    for batch in "${batches[@]}"; do
      has_time_for_pass 20 || continue
      measure "$model" "$batch" mixed_bfloat16 kiln
      measure "$model" "$batch" mixed_bfloat16 eager
    done
  done
fi
KILN_STAGE_EXTRA="$(printf 'device %s (%s); %s batches an epoch, median of %s epochs\n' "$device" \
  "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)" "$steps" \
  "$rounds")
$(table)"
stage_end
