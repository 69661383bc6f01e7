# Sourced by the kill-and-resume tests. same_checkpoint_state DIR: fails (via the caller's `fail`)
# unless DIR/whole and DIR/killed hold latest.checkpoint.h5 files whose every weight and optimizer
# variable prints the same, exactly (9 significant digits round-trip float32).
same_checkpoint_state() {
  local dir=$1
  state() { h5dump -m '%.9g' -g /layers -g /optimizer "$1" | tail -n +2; }
  state "$dir/whole/latest.checkpoint.h5" > "$dir/whole.txt" || fail "h5dump cannot read whole"
  state "$dir/killed/latest.checkpoint.h5" > "$dir/resumed.txt" || fail "h5dump cannot read resumed"
  grep -q "DATASET" "$dir/whole.txt" || fail "no variables dumped"
  cmp -s "$dir/whole.txt" "$dir/resumed.txt" || {
    diff "$dir/whole.txt" "$dir/resumed.txt" | head -n 20
    fail "the resumed run's weights differ from the uninterrupted run's"
  }
}
