#!/usr/bin/env bash
# Disks fail: `kiln train` onto a full disk (a small tmpfs, in a user and mount namespace of its
# own) ends with exit status 1 and a message naming the file and the system's reason, never a
# crash on the way out (HDF5 once left a file open that segfaulted at exit); the earlier
# checkpoint stays as it was and no temporary file is left; and a log.csv that cannot be written
# (a link to /dev/full) fails the run instead of losing the log with exit status 0.
# Usage: kiln_full_disk.sh KILN RUN.yaml DIR
set -uo pipefail
kiln=$1 run=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
if ! unshare -rm true 2>/dev/null; then
  echo "SKIP: this machine gives no user and mount namespaces (unshare -rm)"
  exit 77
fi
small=(--set data.limit=1000 --set training.epochs=1)

# train_on_tmpfs SIZE SETUP [SETTINGS]: trains into a tmpfs of SIZE at $dir/disk/run after
# running SETUP (shell commands) there; prints the output, the exit status and the disk's files.
train_on_tmpfs() {
  local size=$1 setup=$2 extra=${3:-}
  unshare -rm bash -c "
    mount -t tmpfs -o size=$size tmpfs '$dir/disk' || exit 99
    $setup
    '$kiln' --quiet train '$run' ${small[*]} $extra --set output.dir='$dir/disk/run' 2>&1
    echo \"status \$?\"
    find '$dir/disk' -type f | sort
    cmp -s '$dir/disk/run/latest.checkpoint.h5' '$dir/disk/before.h5' && echo 'latest unchanged'
  "
}
mkdir -p "$dir/disk"

# Too small for the first checkpoint.
out=$(train_on_tmpfs 400k "")
echo "$out"
grep -q "status 1$" <<<"$out" || fail "a run onto a full disk must exit 1"
grep -q "cannot write $dir/disk/run/.*: No space left on device" <<<"$out" ||
  fail "the error must name the file and the system's reason"
[[ $(grep -c "\.tmp-[0-9]*$" <<<"$out") -eq 0 ]] || fail "a temporary file was left"

# An earlier run's checkpoint, then the disk filled: the next run fails and leaves it whole.
out=$(train_on_tmpfs 20m "
  '$kiln' --quiet train '$run' ${small[*]} --set output.dir='$dir/disk/run' >/dev/null 2>&1 || exit 98
  cp '$dir/disk/run/latest.checkpoint.h5' '$dir/disk/before.h5'
  dd if=/dev/zero of='$dir/disk/filler' bs=64k 2>/dev/null
" "--set training.epochs=2")
echo "$out"
grep -q "status 1$" <<<"$out" || fail "a run onto a disk that filled up must exit 1"
grep -q "latest unchanged" <<<"$out" || fail "the earlier latest.checkpoint.h5 changed"

# log.csv as a link to /dev/full.
mkdir -p "$dir/devfull"
ln -s /dev/full "$dir/devfull/log.csv"
"$kiln" --quiet train "$run" "${small[@]}" --set "output.dir=$dir/devfull" >"$dir/devfull.out" 2>&1
status=$?
cat "$dir/devfull.out"
[[ $status -eq 1 ]] || fail "an unwritable log.csv must fail the run, got status $status"
grep -q "CSVLogger: cannot write '$dir/devfull/log.csv': No space left on device" \
  "$dir/devfull.out" || fail "the error must name log.csv and the reason"
rm -rf "$dir"
echo PASS
