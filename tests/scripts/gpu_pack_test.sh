#!/usr/bin/env bash
# What scripts/gpu-pack carries to a lent GPU machine, on the CPU: the checks' data is the first
# rows of Fashion-MNIST as valid idx files and a few hundred fortunes a language, a few MiB in
# all; and a pack over the limit is refused, naming its largest members.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
check() {
  if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; failures=$((failures + 1)); fi
}

# The row count of an idx file (its second big-endian word) and its length.
idx_count() { zcat "$1" | head -c 8 | tail -c 4 | od -An -tu1 | awk '{print $1*16777216+$2*65536+$3*256+$4}'; }
idx_bytes() { zcat "$1" | wc -c; }

data=$scratch/data
KILN_PACK_TRAIN_ROWS=300 KILN_PACK_TEST_ROWS=50 KILN_PACK_FORTUNES=120 \
  "$root/scripts/gpu-pack-data" "$data"
check "the data is made" "(($? == 0))"
mnist=$data/fashion-mnist
check "train images: 300 rows of 28x28 after a 16-byte header" \
  "(($(idx_count "$mnist/train-images-idx3-ubyte.gz") == 300 && $(idx_bytes "$mnist/train-images-idx3-ubyte.gz") == 16 + 300 * 784))"
check "train labels: 300 after an 8-byte header" \
  "(($(idx_count "$mnist/train-labels-idx1-ubyte.gz") == 300 && $(idx_bytes "$mnist/train-labels-idx1-ubyte.gz") == 8 + 300))"
check "test images and labels: 50 rows" \
  "(($(idx_count "$mnist/t10k-images-idx3-ubyte.gz") == 50 && $(idx_count "$mnist/t10k-labels-idx1-ubyte.gz") == 50))"
source=${KILN_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
check "the rows are the dataset's first ones" \
  "cmp -s <(zcat '$mnist/train-labels-idx1-ubyte.gz' | tail -c +9) <(zcat '$source/train-labels-idx1-ubyte.gz' | head -c 308 | tail -c +9)"
for language in en de es it pl cs; do
  folder=$data/fortunes/${language/en/}
  entries=$(cat "$folder"/* 2>/dev/null | grep -c '^%$')
  check "$language: about 120 fortunes ($entries)" "((entries >= 100 && entries <= 400))"
done
check "no index or link files are carried" \
  "[[ -z \$(find '$data/fortunes' -name '*.dat' -o -name '*.u8' -o -type l) ]]"
KILN_PACK_TRAIN_ROWS=70000 "$root/scripts/gpu-pack-data" "$scratch/too_many" 2>"$scratch/err"
check "more rows than the dataset has is an error naming the file" \
  "(($? != 0)) && grep -q 'train-images-idx3-ubyte.gz has 60000 rows, not 70000' '$scratch/err'"

mkdir -p "$scratch/pack"
head -c $((3 * 1048576)) /dev/urandom >"$scratch/pack/big.bin"
echo small >"$scratch/pack/small.txt"
tar -C "$scratch/pack" -cJf "$scratch/pack.tar.xz" .
"$root/scripts/gpu-pack-size" "$scratch/pack.tar.xz" 2 2>"$scratch/err"
check "a pack over the limit is refused" "(($? == 1))"
check "the refusal gives the size, the limit and the largest member first" \
  "grep -q 'is 3.0 MiB, over the 2 MiB limit' '$scratch/err' && sed -n 2p '$scratch/err' | grep -q 'big.bin'"
check "a pack under the limit passes" "'$root/scripts/gpu-pack-size' '$scratch/pack.tar.xz' 4 | grep -q '3.0 MiB (limit 4 MiB)'"

((failures == 0)) && echo PASS
