#!/usr/bin/env bash
# The GPU checks' stages (scripts/gpu-steps) on the CPU: each step is bounded by its own limit
# and by what is left of its stage, a failure, a timeout or a skipped step shows in the summary
# table and in the stage's status, the later steps still run, and a stage writes exactly two
# files to $OUT (the device tool brings back at most 8) however many steps fail.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OUT=$scratch/out
failures=0
check() {
  if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

source "$root/scripts/gpu-steps"

stage_begin quick 6
step passes 10 --note 'tests' -- sh -c 'echo "[  PASSED  ] 3 tests."; echo trailing'
step fails 10 -- sh -c 'echo "the kernel faulted"; exit 3'
for i in $(seq 1 12); do step "also_fails_$i" 10 -- false; done
step hangs 1 -- sleep 30
step runs_past_the_stage 30 -- sleep 30
step too_late 10 -- true
KILN_STAGE_EXTRA='a table the stage adds'
stage_end >"$scratch/printed"
status=$?
summary=$OUT/quick-summary.txt

check "the stage fails when a step does" "((status == 1))"
check "a passing step's note is its last line matching the pattern" \
  "grep -Eq '^passes +ok +[0-9]+s  \[  PASSED  \] 3 tests\.' '$summary'"
check "a failing step shows its status and its last line" \
  "grep -Eq '^fails +FAILED\(3\) +[0-9]+s  the kernel faulted' '$summary'"
check "a step past its own limit is stopped" "grep -Eq '^hangs +TIMEOUT +[12]s  stopped after 1 s' '$summary'"
check "a step is cut to what is left of the stage" \
  "grep -Eq '^runs_past_the_stage +TIMEOUT +[0-9]s  stopped after [1-5] s' '$summary'"
check "a step after the stage's time is skipped, not run" \
  "grep -Eq '^too_late +SKIPPED' '$summary'"
check "the summary names every step that did not pass" \
  "grep -q 'stage quick: 16 step(s) did not pass: fails also_fails_1' '$summary'"
check "the summary ends with the tail of a failed step's log" \
  "grep -A2 -- '-- fails: the end of its log' '$summary' | grep -q 'the kernel faulted'"
check "the stage's own table is in the summary" "grep -q 'a table the stage adds' '$summary'"
check "the summary is also printed" "cmp -s <(tail -n +2 '$scratch/printed') '$summary'"
check "two files to \$OUT: the summary and the logs" \
  "[[ \$(ls '$OUT' | tr '\n' ' ') == 'quick-logs.tar.gz quick-summary.txt ' ]]"
check "the logs hold every step's output" \
  "tar -xOzf '$OUT/quick-logs.tar.gz' ./fails.log | grep -q 'the kernel faulted'"

stage_begin bench 30
step measures 10 -- sh -c 'echo "mlp batch 128: ms/step 1.5"'
greeting=hello
greet() { echo "$greeting from a function"; }
export greeting
export -f greet
step calls_a_function 10 -- greet
stage_end >/dev/null
bench_status=$?
check "a stage whose steps all pass passes" "((bench_status == 0))"
check "a step may be an exported shell function" \
  "grep -Eq '^calls_a_function +ok +[0-9]+s  hello from a function' '$OUT/bench-summary.txt'"
check "two stages write four files" "(($(ls "$OUT" | wc -l) == 4))"

((failures == 0)) && echo PASS
