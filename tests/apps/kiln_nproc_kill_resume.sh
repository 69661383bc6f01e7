#!/usr/bin/env bash
# A two-rank `kiln train --nproc 2` whose rank 1 is SIGKILLed mid-epoch ends, non-zero and within
# the collective timeout, with a message naming rank 1; one whose rank 1 stalls (SIGSTOP) ends
# when rank 0's collective times out, naming the collective; --resume with 2 ranks ends bitwise
# where the uninterrupted 2-rank run ends, and --resume with 1 rank continues from the same
# checkpoint.
# Usage: kiln_nproc_kill_resume.sh KILN RUN.yaml DIR
set -uo pipefail
kiln=$1 run=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
source "$(dirname "$0")/same_checkpoint_state.sh"
settings=(--set data.limit=12000 --set training.epochs=2 --set distribute.strategy=multi_worker
          --set distribute.timeout_s=30 --set checkpoint.save_freq=10
          --set checkpoint.save_best_only=false --set checkpoint.save_weights_only=false
          --set "checkpoint.filename=e{epoch}b{batch}.h5" --set checkpoint.keep_last=0)

"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/whole" --nproc 2 \
  > "$dir/whole.log" 2>&1 || { cat "$dir/whole.log"; fail "the uninterrupted run failed"; }

"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/killed" --nproc 2 \
  > "$dir/killed.log" 2>&1 &
launcher=$!
for _ in $(seq 3000); do
  compgen -G "$dir/killed/checkpoints/e2b*.h5" > /dev/null && break
  sleep 0.01
done
# Rank 1 of the run writing to $1: the rank whose environment mpirun gave OMPI_COMM_WORLD_RANK=1.
rank1() {
  for pid in $(pgrep -f "output.dir=$1"); do
    tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" &&
      echo "$pid"
  done
}
victim=$(rank1 "$dir/killed")
[[ -n "$victim" ]] || fail "rank 1 not found (did the run end before its second epoch?)"
started=$(date +%s)
kill -KILL "$victim"
wait "$launcher"
status=$? took=$(($(date +%s) - started))
cat "$dir/killed.log"
[[ $status -ne 0 ]] || fail "the run exited 0 after rank 1 was killed"
((took <= 35)) || fail "the other rank took ${took}s to end"
grep -q "rank 1" "$dir/killed.log" || fail "no message names rank 1"
echo "rank 1 killed; the run ended with status $status after ${took}s"

# A stalled rank: rank 0 gives up after distribute.timeout_s.
"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/stalled" --nproc 2 \
  --set distribute.timeout_s=5 > "$dir/stalled.log" 2>&1 &
launcher=$!
for _ in $(seq 3000); do
  compgen -G "$dir/stalled/checkpoints/e1b*.h5" > /dev/null && break
  sleep 0.01
done
victim=$(rank1 "$dir/stalled")
[[ -n "$victim" ]] || fail "rank 1 of the stalled run not found"
started=$(date +%s)
kill -STOP "$victim"
wait "$launcher"
status=$? took=$(($(date +%s) - started))
cat "$dir/stalled.log"
[[ $status -ne 0 ]] || fail "the run exited 0 with rank 1 stalled"
((took <= 15)) || fail "rank 0 took ${took}s to give up on the stalled rank"
grep -q "rank 0 of 2: .* did not finish within 5 s" "$dir/stalled.log" ||
  fail "no message names the collective that timed out"
echo "rank 1 stalled; the run ended with status $status after ${took}s"

newest=$(ls -t "$dir"/killed/checkpoints/e*.h5 | head -n 1)
cp -r "$dir/killed" "$dir/one_rank"
"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/killed" --nproc 2 \
  --resume "$newest" > "$dir/resumed.log" 2>&1 || { cat "$dir/resumed.log"; fail "the 2-rank resume failed"; }
"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/one_rank" \
  --resume "${newest/killed/one_rank}" > "$dir/one_rank.log" 2>&1 ||
  { cat "$dir/one_rank.log"; fail "the 1-rank resume failed"; }
grep -q "test_accuracy" "$dir/one_rank.log" || fail "the 1-rank resume did not finish"

same_checkpoint_state "$dir"
rm -rf "$dir"
echo PASS
