#!/usr/bin/env bash
# The kiln command as scripts use it: per-command help, exit statuses (0 success, 1 failure,
# 2 usage), validate, a quiet train, evaluate and predict from its checkpoint and from the .keras
# model it saved, inspect, TensorBoard's event files and its --logdir line, and an independent
# HDF5 reader (h5ls) finding the Keras layout in the checkpoint.
# Usage: kiln_commands.sh KILN RUN.yaml DIR
set -uo pipefail
kiln=$1 run=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# Runs a command, expecting exit status $1; its output goes to $dir/out.
expect_status() {
  local want=$1
  shift
  "$@" > "$dir/out" 2>&1
  local got=$?
  [[ $got -eq $want ]] || { cat "$dir/out"; fail "'$*' exited $got, expected $want"; }
}

for command in train evaluate predict validate inspect; do
  expect_status 0 "$kiln" "$command" --help
  grep -q "usage: kiln $command" "$dir/out" || fail "no usage line for $command"
done
expect_status 2 "$kiln" evaluate "$run"  # --weights missing
grep -q "weights FILE is required" "$dir/out" || fail "evaluate without --weights"
expect_status 2 "$kiln" train
expect_status 2 "$kiln" --loud train "$run"

expect_status 0 "$kiln" --verbose validate "$run"
printf 'model:\n  layers:\n    - Dense: {unit: 3}\nloss: mse\ndata: {dataset: fashion_mnist}\n' \
  > "$dir/bad.yaml"
expect_status 1 "$kiln" validate "$dir/bad.yaml"
grep -q "bad.yaml:3:" "$dir/out" || fail "a bad run's error names no place in it"

settings=(--set data.limit=2000 --set training.epochs=1 --set "output.dir=$dir/run")
expect_status 0 "$kiln" --quiet train "$run" "${settings[@]}"
grep -q "━" "$dir/out" && fail "--quiet printed a progress bar"
grep -Eq "test_loss: [0-9.]+ - test_accuracy: [0-9.]+" "$dir/out" || fail "train: no test scores"
checkpoint="$dir/run/latest.checkpoint.h5"
grep -q "TensorBoard: tensorboard --logdir $dir/run/logs" "$dir/out" || fail "no TensorBoard line"
ls "$dir/run/logs/train/"events.out.tfevents.* > /dev/null || fail "no training event file"
ls "$dir/run/logs/validation/"events.out.tfevents.* > /dev/null || fail "no validation event file"
grep -q "model saved: $dir/run/fashion_mnist_mlp.keras" "$dir/out" || fail "no saved model line"
model="$dir/run/fashion_mnist_mlp.keras"

expect_status 0 "$kiln" --quiet evaluate "$run" "${settings[@]}" --weights "$checkpoint"
grep -Eq "test_loss: [0-9.]+ - test_accuracy: [0-9.]+" "$dir/out" || fail "evaluate: no scores"
expect_status 0 "$kiln" --quiet evaluate "$run" "${settings[@]}" --model "$model"
grep -Eq "test_loss: [0-9.]+ - test_accuracy: [0-9.]+" "$dir/out" || fail "evaluate .keras"
expect_status 2 "$kiln" evaluate "$model"
grep -q "give the model with --model" "$dir/out" || fail "evaluate MODEL.keras without a run file"
expect_status 2 "$kiln" evaluate "$run" --model "$checkpoint"
grep -q "\-\-model takes a .keras file" "$dir/out" || fail "--model with a checkpoint"
expect_status 2 "$kiln" evaluate "$run" --model "$model" --weights "$checkpoint"
expect_status 1 "$kiln" evaluate "$run" --weights "$dir/missing.h5"
grep -q "missing.h5" "$dir/out" || fail "a missing checkpoint is not named"

# Two 28x28 float32 images as a NumPy file (format 1.0: magic, header length, header, data).
header="{'descr': '<f4', 'fortran_order': False, 'shape': (2, 28, 28), }"
while (( (10 + ${#header} + 1) % 64 != 0 )); do header+=" "; done
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#header} + 1) % 256 )))\\x00";
  printf '%s\n' "$header"; head -c $((2 * 28 * 28 * 4)) /dev/zero; } > "$dir/in.npy"
expect_status 0 "$kiln" --quiet predict "$run" "${settings[@]}" --weights "$checkpoint" \
  --input "$dir/in.npy" --output "$dir/out.npy"
head -c 128 "$dir/out.npy" | grep -aq "'shape': (2, 10)" || fail "predict: no (2, 10) output"
# A .keras file is the whole model: no run file needed, the same outputs.
expect_status 0 "$kiln" --quiet predict "$model" --input "$dir/in.npy" --output "$dir/out2.npy"
cmp -s "$dir/out.npy" "$dir/out2.npy" || fail "predict from the .keras differs from its checkpoint's"
expect_status 2 "$kiln" predict "$model" --set training.epochs=2 --input "$dir/in.npy" \
  --output "$dir/out3.npy"

expect_status 0 "$kiln" inspect "$checkpoint"
for part in "kiln checkpoint" "epoch" "fashion_mnist"; do
  grep -q "$part" "$dir/out" || { cat "$dir/out"; fail "inspect shows no '$part'"; }
done
expect_status 0 "$kiln" inspect "$model"
for part in "Keras model file" "fashion_mnist_mlp" "Dense" "compiled:" "Adam" "iterations"; do
  grep -q "$part" "$dir/out" || { cat "$dir/out"; fail "inspect .keras shows no '$part'"; }
done
if command -v h5ls > /dev/null; then
  h5ls -r "$checkpoint" > "$dir/out" 2>&1 || fail "h5ls cannot read the checkpoint"
  grep -Eq "^/layers/dense/vars/0 +Dataset \{784, 256\}" "$dir/out" ||
    { cat "$dir/out"; fail "h5ls finds no Keras-layout kernel"; }
fi
rm -rf "$dir"
echo PASS
