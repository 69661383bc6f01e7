#pragma once
// The inner loops of the fused elementwise kernel: one instruction over a block of n elements.
// block_loops.inc defines them; it is compiled once per instruction set level (SSE2, AVX2, AVX-512:
// x86-64 v1, v3, v4), each copy in a namespace of its own, and KILN_BLOCK_LOOP picks the copy for
// the level the processor runs (cpu_isa.h).
//
// Every loop takes the op's functor as an opaque pointer (functors carry attributes such as
// leaky_relu's alpha), its operand blocks and its result block. A splat operand (a scalar input)
// points at its one value.
#include <cstdint>

#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/core/half.h"
#include "kiln/framework/ops/elementwise_functor_list.h"
#include "kiln/framework/ops/elementwise_functors.h"

namespace kiln::cpu {

template <typename C>
using BlockLoop = void (*)(const void* functor, const C* const* args, C* out, int64_t n);

// Which operand of a binary op is a splat: its value stays in a register instead of being spread
// over a block and loaded again per element.
enum class Splat : uint8_t { none, first, second };

#define KILN_DECLARE_BLOCK_LOOPS(isa_ns)                                                    \
  namespace isa_ns {                                                                        \
  template <typename C, typename F>                                                         \
  void unary(const void* functor, const C* const* args, C* out, int64_t n);                 \
  template <typename C, typename F, Splat S>                                                \
  void binary(const void* functor, const C* const* args, C* out, int64_t n);                \
  /* where(x0, x1, x2), bool held as 0 and 1 */                                             \
  template <typename C>                                                                     \
  void select(const void* functor, const C* const* args, C* out, int64_t n);                \
  /* cast to bool: 0 or 1 */                                                                \
  template <typename C>                                                                     \
  void to_bool(const void* functor, const C* const* args, C* out, int64_t n);               \
  /* cast to the compute type itself */                                                     \
  template <typename C>                                                                     \
  void copy(const void* functor, const C* const* args, C* out, int64_t n);                  \
  /* a float rounded to the nearest bfloat16 (a bfloat16 program's results) */              \
  void round_to_bf16(const void* functor, const float* const* args, float* out, int64_t n); \
  /* conversions between float and bfloat16 (the cast op, a bfloat16 program's reads) */    \
  void narrow_to_bf16(const float* in, bfloat16* out, int64_t n);                           \
  void widen_from_bf16(const bfloat16* in, float* out, int64_t n);                          \
  }

KILN_DECLARE_BLOCK_LOOPS(isa_sse2)
#if defined(KILN_CPU_X86_ISAS)
KILN_DECLARE_BLOCK_LOOPS(isa_avx2)
KILN_DECLARE_BLOCK_LOOPS(isa_avx512)
#endif
#undef KILN_DECLARE_BLOCK_LOOPS

// The address of a loop's copy for the level `isa`: KILN_BLOCK_LOOP(isa, unary<float, fn::Exp>).
#if defined(KILN_CPU_X86_ISAS)
#define KILN_BLOCK_LOOP(isa, ...)                                               \
  ((isa) == ::kiln::cpu::CpuIsa::avx512 ? &::kiln::cpu::isa_avx512::__VA_ARGS__ \
   : (isa) == ::kiln::cpu::CpuIsa::avx2 ? &::kiln::cpu::isa_avx2::__VA_ARGS__   \
                                        : &::kiln::cpu::isa_sse2::__VA_ARGS__)
#else
#define KILN_BLOCK_LOOP(isa, ...) (&::kiln::cpu::isa_sse2::__VA_ARGS__)
#endif

}  // namespace kiln::cpu
