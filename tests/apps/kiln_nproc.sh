#!/usr/bin/env bash
# `kiln train --nproc 2` (two MPI ranks, one replica each, multi_worker) reaches the test accuracy
# of one process within half a point, reports it once, and writes one run directory; mirrored
# over two devices (two replica threads in one process) reaches the two ranks' test accuracy
# within half a point too (equal on the 2-core CI machine; elsewhere the threads and the ranks
# may run oneDNN with teams of other sizes).
# Usage: kiln_nproc.sh KILN RUN.yaml DIR
set -uo pipefail
kiln=$1 run=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
settings=(--set distribute.strategy=multi_worker)

"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/runs/one" > "$dir/one.log" 2>&1 ||
  { cat "$dir/one.log"; fail "the one-process run failed"; }
"$kiln" --quiet train "$run" "${settings[@]}" --set "output.dir=$dir/runs/two" --nproc 2 \
  > "$dir/two.log" 2>&1 || { cat "$dir/two.log"; fail "the two-process run failed"; }
"$kiln" --quiet train "$run" --set distribute.strategy=mirrored --set "distribute.devices=[cpu, cpu]" \
  --set "output.dir=$dir/runs/mirrored" > "$dir/mirrored.log" 2>&1 ||
  { cat "$dir/mirrored.log"; fail "the mirrored run failed"; }
cat "$dir/one.log" "$dir/two.log" "$dir/mirrored.log"

accuracy() { sed -n 's/.*test_accuracy: \([0-9.]*\).*/\1/p' "$1"; }
[[ $(grep -c "test_accuracy" "$dir/two.log") -eq 1 ]] || fail "the ranks did not report once"
one=$(accuracy "$dir/one.log") two=$(accuracy "$dir/two.log")
[[ -n "$one" && -n "$two" ]] || fail "no test accuracy reported"
awk -v a="$one" -v b="$two" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.005) }' ||
  fail "test accuracy $two with 2 processes, $one with 1"
[[ $(grep -c "test_accuracy" "$dir/mirrored.log") -eq 1 ]] || fail "mirrored: not reported once"
mirrored=$(accuracy "$dir/mirrored.log")
awk -v a="$mirrored" -v b="$two" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.005) }' ||
  fail "mirrored over two devices: $mirrored, two ranks: $two"
[[ $(ls "$dir/runs") == $'mirrored\none\ntwo' ]] || fail "run directories: $(ls "$dir/runs")"
for f in config.yaml log.csv latest.checkpoint.h5; do
  [[ -f "$dir/runs/two/$f" ]] || fail "the two-process run wrote no $f"
done
rm -rf "$dir"
echo PASS
