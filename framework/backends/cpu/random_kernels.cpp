// Kernels of the stateless random ops: element i of a draw comes from Philox block
// (i / values per block, seed[1]) under key seed[0], so values depend on neither the thread count
// nor the device.
#include <type_traits>

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
  const std::array<uint32_t, 2> philox_key{static_cast<uint32_t>(key),
                                           static_cast<uint32_t>(key >> 32)};
  visit_dtype(c.output.dtype(), [&]<typename T>() {
    // One Philox block gives four 32-bit words: four single-precision values, or two doubles
    // (53 random bits each). Block i / per serves element i, whatever the thread split.
    constexpr bool kWide = std::is_same_v<T, double>;
    constexpr int64_t kPerBlock = kWide ? 2 : 4;
    T* out = static_cast<T*>(c.output.raw_data());
    parallel_for(c.output.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e;) {
        const auto index = static_cast<uint64_t>(i / kPerBlock);
        const random::PhiloxBlock block = random::philox4x32(
            {static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
             static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)},
            philox_key);
        for (size_t j = static_cast<size_t>(i % kPerBlock); j < size_t{kPerBlock} && i < e;
             ++j, ++i) {
          if constexpr (kWide)
            out[i] = random::uniform01(block[2 * j], block[2 * j + 1]);
          else
            out[i] = convert_value<T>(random::uniform01(block[j]));
        }
      }
    });
  });
}

}  // namespace

void register_random_kernels(OpTable& t) {
  t.set_kernel(OpId::random_uniform, DeviceType::cpu, random_uniform_kernel);
}

}  // namespace kiln::cpu
