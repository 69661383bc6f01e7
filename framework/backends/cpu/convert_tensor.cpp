#include "kiln/framework/backends/cpu/convert_tensor.h"

#include "kiln/framework/backends/cpu/block_loops.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cpu {
namespace {

// Runs loop(in + begin, out + begin, n) over the elements in chunks on the pool.
template <typename From, typename To>
void convert_in_chunks(void (*loop)(const From*, To*, int64_t), const Tensor& in,
                       const Tensor& out) {
  const auto* src = static_cast<const From*>(in.raw_data());
  auto* dst = static_cast<To*>(out.raw_data());
  parallel_for(out.numel(), kParallelGrain,
               [&](int64_t begin, int64_t end) { loop(src + begin, dst + begin, end - begin); });
}

}  // namespace

void convert_tensor(const Tensor& in, const Tensor& out) {
  const DType from = in.dtype(), to = out.dtype();
  const CpuIsa isa = cpu_isa();
  if (from == DType::f32 && to == DType::bf16)
    convert_in_chunks(KILN_BLOCK_LOOP(isa, narrow_to_bf16), in, out);
  else if (from == DType::bf16 && to == DType::f32)
    convert_in_chunks(KILN_BLOCK_LOOP(isa, widen_from_bf16), in, out);
  else
    convert_buffer(in.raw_data(), from, out.raw_data(), to, static_cast<size_t>(out.numel()));
}

}  // namespace kiln::cpu
