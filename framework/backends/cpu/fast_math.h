#pragma once
// exp, sigmoid and tanh for float32 written without branches or library calls, so loops over
// them vectorize (std::exp stays scalar without -ffast-math, and a recurrent step spends more
// time in its gates' transcendentals than in its matmul otherwise). Accurate to a few ulp;
// float64 callers get the standard library. Files using them compile with -fno-trapping-math:
// with trapping math GCC keeps the clamps' branches and the loops stay scalar.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace kiln::cpu {

// e^x: x = n ln2 + r with |r| <= ln2/2, e^r by a degree-6 polynomial, 2^n through the exponent
// bits. Inputs are clamped to the finite float range.
inline float fast_exp(float x) {
  x = std::min(std::max(x, -87.3f), 88.3f);
  // Round to nearest by adding and subtracting 1.5 * 2^23 (no floor/round call to vectorize).
  const float n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const auto bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  return p * std::bit_cast<float>(bits);
}

inline float fast_sigmoid(float x) {
  return 1.0f / (1.0f + fast_exp(-x));
}

// An odd polynomial near 0 (where 1 - 2 / (e^2x + 1) loses relative precision), the exp form
// elsewhere; both are computed and one selected, which vectorizes.
inline float fast_tanh(float x) {
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = x + x * z * p;
  const float large = 1.0f - 2.0f / (fast_exp(2.0f * x) + 1.0f);
  return std::fabs(x) < 0.625f ? small : large;
}

template <typename T>
T sigmoid_fn(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return fast_sigmoid(x);
  } else {
    return T(1) / (T(1) + std::exp(-x));
  }
}
template <typename T>
T tanh_fn(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return fast_tanh(x);
  } else {
    return std::tanh(x);
  }
}

}  // namespace kiln::cpu
