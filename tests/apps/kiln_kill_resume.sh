#!/usr/bin/env bash
# `kiln train` killed with SIGKILL in the middle of an epoch and resumed with --resume from its
# newest checkpoint ends with weights and optimizer state bitwise equal to an uninterrupted run.
# Usage: kiln_kill_resume.sh KILN RUN.yaml DIR [--set key=value ...] (settings for the run's data)
set -uo pipefail
kiln=$1 run=$2 dir=$3
shift 3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
source "$(dirname "$0")/same_checkpoint_state.sh"
# Full checkpoints every 20 batches, named by epoch and batch, none deleted.
settings=(--set data.limit=30000 --set training.epochs=2 --set checkpoint.save_freq=20
          --set checkpoint.save_best_only=false --set checkpoint.save_weights_only=false
          --set "checkpoint.filename=e{epoch}b{batch}.h5" --set checkpoint.keep_last=0 "$@")

"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/whole" > "$dir/whole.log" 2>&1 ||
  { cat "$dir/whole.log"; fail "the uninterrupted run failed"; }

"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/killed" > "$dir/killed.log" 2>&1 &
pid=$!
for _ in $(seq 3000); do
  compgen -G "$dir/killed/checkpoints/e2b*.h5" > /dev/null && break
  sleep 0.01
done
kill -KILL "$pid"
wait "$pid"
[[ $? -eq 137 ]] || fail "the run ended before it could be killed in its second epoch"
newest=$(ls -t "$dir"/killed/checkpoints/e*.h5 | head -n 1)
echo "killed; resuming from $newest"
"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/killed" --resume "$newest" \
  > "$dir/resumed.log" 2>&1 || { cat "$dir/resumed.log"; fail "the resumed run failed"; }

same_checkpoint_state "$dir"
# One log row per epoch, as the uninterrupted run's.
[[ $(cut -d, -f1 "$dir/killed/log.csv") == $(cut -d, -f1 "$dir/whole/log.csv") ]] ||
  fail "log.csv's epochs differ from the uninterrupted run's: $(cut -d, -f1 "$dir/killed/log.csv" | tr '\n' ' ')"
rm -rf "$dir"
echo PASS
