#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): a counter-based
// generator. Each output depends only on (key, counter), so every element of a random tensor is
// computed independently and results do not depend on thread count or device. Host and device
// code (KILN_HD): the CUDA kernels draw the CPU's streams bit for bit.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kiln/framework/core/convert.h"
#include "kiln/framework/core/half.h"

namespace kiln::random {

// Four 32-bit words: a counter, or the block of output it gives.
struct PhiloxBlock {
  uint32_t words[4];
  KILN_HD uint32_t operator[](size_t i) const { return words[i]; }
  bool operator==(const PhiloxBlock&) const = default;
};

struct PhiloxKey {
  uint32_t words[2];
};

KILN_HD inline PhiloxBlock philox4x32(PhiloxBlock counter, PhiloxKey key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * counter.words[0];
    const uint64_t p1 = uint64_t{kMul1} * counter.words[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter.words[1] ^ key.words[0],
               static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter.words[3] ^ key.words[1],
               static_cast<uint32_t>(p0)};
    key.words[0] += kWeyl0;
    key.words[1] += kWeyl1;
  }
  return counter;
}

// A uniform float in [0, 1) from the top 24 bits.
KILN_HD inline float uniform01(uint32_t bits) {
  return static_cast<float>(bits >> 8) * 0x1.0p-24f;
}
// A uniform double in [0, 1) from 53 bits of two words.
KILN_HD inline double uniform01(uint32_t hi, uint32_t lo) {
  return static_cast<double>((uint64_t{hi} << 21) ^ (lo >> 11)) * 0x1.0p-53;
}

// The random_uniform op's stream: element i of a draw with seed (key, counter) comes from block
// i / kUniformPerBlock<T>, one block giving four single-precision values or two doubles (53
// random bits each).
template <typename T>
inline constexpr int64_t kUniformPerBlock = std::is_same_v<T, double> ? 2 : 4;

KILN_HD inline PhiloxBlock uniform_block(uint64_t key, uint64_t counter, uint64_t block) {
  return philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                     static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)},
                    {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

// Value j of a block, in T.
template <typename T>
KILN_HD inline T uniform_value(const PhiloxBlock& block, int64_t j) {
  if constexpr (std::is_same_v<T, double>)
    return uniform01(block[static_cast<size_t>(2 * j)], block[static_cast<size_t>(2 * j + 1)]);
  else
    return convert_value<T>(uniform01(block[static_cast<size_t>(j)]));
}

}  // namespace kiln::random
