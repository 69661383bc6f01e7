#pragma once
// 16-bit float storage types. Arithmetic converts to float: kernels compute in f32 and round
// once on store, which is what oneDNN and cuDNN do for these types too. Everything here is also
// device code under nvcc, so CUDA kernels convert exactly like the CPU.
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define KILN_HD __host__ __device__
#else
#define KILN_HD
#endif

namespace kiln {

namespace detail {
// std::bit_cast is host-only under nvcc; device code uses the equivalent intrinsics.
KILN_HD inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return std::bit_cast<uint32_t>(f);
#endif
}
KILN_HD inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}
}  // namespace detail

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  KILN_HD explicit bfloat16(float f) : bits(round_from(f)) {}
  KILN_HD explicit operator float() const { return detail::bits_float(uint32_t{bits} << 16); }

 private:
  KILN_HD static uint16_t round_from(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
      return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);                   // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  }
};

struct float16 {
  uint16_t bits = 0;
  float16() = default;
  KILN_HD explicit float16(float f) : bits(from_float(f)) {}
  KILN_HD explicit operator float() const { return to_float(bits); }

 private:
  KILN_HD static uint16_t from_float(float f);
  KILN_HD static float to_float(uint16_t h);
};

KILN_HD inline uint16_t float16::from_float(float f) {
  const uint32_t u = detail::float_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale into the 10-bit mantissa with round-to-nearest-even.
    const float scaled = detail::bits_float(abs) * 16777216.0f;  // 2^24
    const auto m = static_cast<uint32_t>(scaled);
    const float frac = scaled - static_cast<float>(m);
    uint32_t r = m + ((frac > 0.5f || (frac == 0.5f && (m & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t mant = abs + 0x0fffu + ((abs >> 13) & 1u);  // round to nearest even at bit 13
  mant -= 0x38000000u;                                 // rebias exponent 127 -> 15
  return static_cast<uint16_t>(sign | (mant >> 13));
}

KILN_HD inline float float16::to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return detail::bits_float(detail::float_bits(v) | sign);
  }
  if (exp == 31) return detail::bits_float(sign | 0x7f800000u | (mant << 13));
  return detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace kiln
