#!/bin/sh
# The fused loops compiled for AVX2 and AVX-512 must define no symbol outside their own
# namespace: an inline function they emitted out of line (a std:: helper, a functor) is one the
# linker may pick for every caller, and it would then run AVX-512 code on processors without it.
# Usage: isa_objects_are_self_contained.sh LIBRARY.a
set -eu
strays=$(nm -C --defined-only "$1" | awk '
  /^block_loops_avx(2|512)\.cpp\.o:$/ { member = $1; next }
  /:$/ { member = ""; next }
  member != "" && $2 ~ /^[TWVDBRu]$/ && $0 !~ /kiln::cpu::isa_avx(2|512)::/ { print member, $0 }')
if [ -n "$strays" ]; then
  echo "symbols the linker could share with other objects:"
  echo "$strays"
  exit 1
fi
count=$(nm -C --defined-only "$1" | grep -c "kiln::cpu::isa_avx512::" || true)
[ "$count" -gt 0 ] || { echo "no AVX-512 loops in $1"; exit 1; }
echo "ok: $count AVX-512 loops, nothing else defined"
