// Kernels of the stateless random ops: element i of a draw comes from Philox block
// (i / values per block, seed[1]) under key seed[0] (random::uniform_block), so values depend on
// neither the thread count nor the device.
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/random/philox.h"

namespace kiln::cpu {
namespace {

void random_uniform_kernel(const KernelContext& c) {
  const int64_t* seed = c.inputs[1].data<int64_t>();
  const auto key = static_cast<uint64_t>(seed[0]);
  const auto counter = static_cast<uint64_t>(seed[1]);
  visit_dtype(c.output.dtype(), [&]<typename T>() {
    constexpr int64_t kPerBlock = random::kUniformPerBlock<T>;
    T* out = static_cast<T*>(c.output.raw_data());
    parallel_for(c.output.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e;) {
        const random::PhiloxBlock block =
            random::uniform_block(key, counter, static_cast<uint64_t>(i / kPerBlock));
        for (int64_t j = i % kPerBlock; j < kPerBlock && i < e; ++j, ++i)
          out[i] = random::uniform_value<T>(block, j);
      }
    });
  });
}

}  // namespace

void register_random_kernels(OpTable& t) {
  t.set_kernel(OpId::random_uniform, DeviceType::cpu, random_uniform_kernel);
}

}  // namespace kiln::cpu
