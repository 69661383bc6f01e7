#pragma once
// Runs a loop body compiled for the instruction set level cpu_isa() picks: the body (a lambda) is
// inlined, with everything it calls, into one copy per level. Unlike block_loops.inc's separate
// objects this needs no extra translation unit: the target attribute applies to the flattened
// copy alone, and out-of-line copies of what the body calls keep the baseline level, so nothing
// compiled for AVX-512 can be linked into code that runs without it.
#include "kiln/framework/backends/cpu/cpu_isa.h"

namespace kiln::cpu {

namespace isa_detail {
#if defined(__x86_64__)
template <typename Fn>
[[gnu::target("arch=x86-64-v4"), gnu::flatten]] void run_avx512(const Fn& fn) {
  fn();
}
template <typename Fn>
[[gnu::target("arch=x86-64-v3"), gnu::flatten]] void run_avx2(const Fn& fn) {
  fn();
}
#endif
template <typename Fn>
[[gnu::flatten]] void run_baseline(const Fn& fn) {
  fn();
}
}  // namespace isa_detail

// fn() at `isa`'s level; the caller reads cpu_isa() once per kernel call, not per chunk.
template <typename Fn>
void run_at_isa(CpuIsa isa, const Fn& fn) {
#if defined(__x86_64__)
  if (isa == CpuIsa::avx512) return isa_detail::run_avx512(fn);
  if (isa == CpuIsa::avx2) return isa_detail::run_avx2(fn);
#endif
  (void)isa;
  isa_detail::run_baseline(fn);
}

}  // namespace kiln::cpu
