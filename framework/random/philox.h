#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): a counter-based
// generator. Each output depends only on (key, counter), so every element of a random tensor is
// computed independently and results do not depend on thread count or device.
#include <array>
#include <cstdint>

namespace kiln::random {

using PhiloxBlock = std::array<uint32_t, 4>;

inline PhiloxBlock philox4x32(PhiloxBlock counter, std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * counter[0];
    const uint64_t p1 = uint64_t{kMul1} * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return counter;
}

// A uniform float in [0, 1) from the top 24 bits.
inline float uniform01(uint32_t bits) {
  return static_cast<float>(bits >> 8) * 0x1.0p-24f;
}
// A uniform double in [0, 1) from 53 bits of two words.
inline double uniform01(uint32_t hi, uint32_t lo) {
  return static_cast<double>((uint64_t{hi} << 21) ^ (lo >> 11)) * 0x1.0p-53;
}

}  // namespace kiln::random
