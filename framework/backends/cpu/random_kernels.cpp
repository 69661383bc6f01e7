// Kernels of the stateless random ops: element i of a draw is Philox block (i, seed[1]) under key
// seed[0], so values depend on neither the thread count nor the device.
#include "framework/backends/cpu/cpu_kernels.h"
#include "framework/backends/cpu/parallel.h"
#include "framework/core/convert.h"
#include "framework/random/philox.h"

namespace kiln::cpu {
namespace {

void random_uniform_kernel(const KernelContext& c) {
  const int64_t* seed = c.inputs[1].data<int64_t>();
  const auto key = static_cast<uint64_t>(seed[0]);
  const auto counter = static_cast<uint64_t>(seed[1]);
  const std::array<uint32_t, 2> philox_key{static_cast<uint32_t>(key),
                                           static_cast<uint32_t>(key >> 32)};
  visit_dtype(c.output.dtype(), [&]<typename T>() {
    T* out = static_cast<T*>(c.output.raw_data());
    parallel_for(c.output.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const auto idx = static_cast<uint64_t>(i);
        const random::PhiloxBlock block = random::philox4x32(
            {static_cast<uint32_t>(idx), static_cast<uint32_t>(idx >> 32),
             static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)},
            philox_key);
        out[i] = convert_value<T>(random::uniform01(block[0], block[1]));
      }
    });
  });
}

}  // namespace

void register_random_kernels(OpTable& t) {
  t.set_kernel(OpId::random_uniform, DeviceType::cpu, random_uniform_kernel);
}

}  // namespace kiln::cpu
