#!/usr/bin/env bash
# Ctrl-C during `kiln train` writes latest.checkpoint.h5 and exits 1; `kiln train --resume`
# continues from it and finishes with test scores. Usage: kiln_interrupt_resume.sh KILN RUN.yaml DIR
set -uo pipefail
kiln=$1 run=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
settings=(--set data.limit=12000 --set training.epochs=3 --set "output.dir=$dir/run")

"$kiln" train "$run" "${settings[@]}" > "$dir/first.log" 2>&1 &
pid=$!
# The progress line of the first epoch means the handler is installed and training runs.
for _ in $(seq 600); do
  grep -q "Epoch 1/" "$dir/first.log" && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
cat "$dir/first.log"
[[ $status -eq 1 ]] || { echo "FAIL: an interrupted run exits 1, got $status"; exit 1; }
grep -q "interrupted" "$dir/first.log" || { echo "FAIL: no interruption message"; exit 1; }
[[ -f "$dir/run/latest.checkpoint.h5" ]] || { echo "FAIL: no checkpoint written"; exit 1; }
# Into a file first: grep -q stops reading at its match, and under pipefail the writer's SIGPIPE
# would fail the pipeline.
"$kiln" inspect "$dir/run/latest.checkpoint.h5" > "$dir/inspect.txt" &&
  grep -q "kiln checkpoint" "$dir/inspect.txt" || { echo "FAIL: the checkpoint does not inspect"; exit 1; }

"$kiln" --quiet train "$run" "${settings[@]}" --resume > "$dir/second.log" 2>&1
status=$?
cat "$dir/second.log"
[[ $status -eq 0 ]] || { echo "FAIL: the resumed run exits $status"; exit 1; }
grep -Eq "test_loss: [0-9.]+ - test_accuracy: [0-9.]+" "$dir/second.log" ||
  { echo "FAIL: the resumed run printed no test scores"; exit 1; }
rm -rf "$dir"
echo PASS
