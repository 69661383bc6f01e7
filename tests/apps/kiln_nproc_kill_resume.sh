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

# Rank 1 of the run writing to $1: the rank whose environment mpirun gave OMPI_COMM_WORLD_RANK=1.
rank1() {
  for pid in $(pgrep -f "output.dir=$1"); do
    tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" &&
      echo "$pid"
  done
}
# Starts a 2-rank run into $dir/NAME (more arguments after the first three), waits for its first
# checkpoint matching GLOB, sends SIGNAL to rank 1 and waits for the run; sets status and took
# (seconds from the signal to the run's end).
disturb_rank1() {
  local name=$1 glob=$2 signal=$3
  shift 3
  "$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/$name" --nproc 2 "$@" \
    > "$dir/$name.log" 2>&1 &
  local launcher=$!
  for _ in $(seq 3000); do
    compgen -G "$dir/$name/checkpoints/$glob" > /dev/null && break
    sleep 0.01
  done
  local victim started
  victim=$(rank1 "$dir/$name")
  [[ -n "$victim" ]] || fail "rank 1 of the $name run not found (did it end first?)"
  started=$(date +%s)
  kill "-$signal" "$victim"
  wait "$launcher"
  status=$? took=$(($(date +%s) - started))
  cat "$dir/$name.log"
}

disturb_rank1 killed "e2b*.h5" KILL
[[ $status -ne 0 ]] || fail "the run exited 0 after rank 1 was killed"
((took <= 35)) || fail "the other rank took ${took}s to end"
grep -q "rank 1" "$dir/killed.log" || fail "no message names rank 1"
echo "rank 1 killed; the run ended with status $status after ${took}s"

# A stalled rank: rank 0 gives up after distribute.timeout_s.
disturb_rank1 stalled "e1b*.h5" STOP --set distribute.timeout_s=5
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
