#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/half.h"

namespace kiln {

// string is Keras's "string": host-only text for the preprocessing layers that read it
// (TextVectorization, StringLookup, Hashing). Its elements are std::string objects, so it has
// no kernels; ops refuse it (framework/ops/dispatch.cpp).
enum class DType : uint8_t { f32, f64, f16, bf16, i32, i64, u8, boolean, string };

inline constexpr int kNumDTypes = 9;

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);  // Keras/NumPy names: float32, int64, bool, ...
DType dtype_from_name(std::string_view name);
bool is_floating(DType dtype);
bool is_integral(DType dtype);  // integers and bool
bool is_string(DType dtype);

// The result type of a binary op on two dtypes: bool < u8 < i32 < i64 < {f16, bf16} < f32 < f64;
// f16 with bf16 gives f32 (neither holds the other).
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& out, DType dtype);

// The C++ type of each dtype, for kernels.
template <DType d>
struct dtype_traits;
template <>
struct dtype_traits<DType::f32> {
  using type = float;
};
template <>
struct dtype_traits<DType::f64> {
  using type = double;
};
template <>
struct dtype_traits<DType::f16> {
  using type = float16;
};
template <>
struct dtype_traits<DType::bf16> {
  using type = bfloat16;
};
template <>
struct dtype_traits<DType::i32> {
  using type = int32_t;
};
template <>
struct dtype_traits<DType::i64> {
  using type = int64_t;
};
template <>
struct dtype_traits<DType::u8> {
  using type = uint8_t;
};
template <>
struct dtype_traits<DType::boolean> {
  using type = bool;
};

template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::f32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::f64;
  else if constexpr (std::is_same_v<T, float16>)
    return DType::f16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return DType::bf16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::i32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::i64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::u8;
  else if constexpr (std::is_same_v<T, std::string>)
    return DType::string;
  else {
    static_assert(std::is_same_v<T, bool>, "not a kiln dtype");
    return DType::boolean;
  }
}

// Sets of dtypes a kernel accepts, as bit masks over DType.
constexpr unsigned dtype_bit(DType d) {
  return 1u << static_cast<unsigned>(d);
}
inline constexpr unsigned kFloatingDTypes =
    dtype_bit(DType::f32) | dtype_bit(DType::f64) | dtype_bit(DType::f16) | dtype_bit(DType::bf16);
inline constexpr unsigned kNumericDTypes =
    kFloatingDTypes | dtype_bit(DType::i32) | dtype_bit(DType::i64) | dtype_bit(DType::u8);
inline constexpr unsigned kAllDTypes = kNumericDTypes | dtype_bit(DType::boolean);

// Calls fn.template operator()<T>() with T the C++ type of dtype when dtype is in `allowed`;
// other dtypes raise an error naming `what` (usually the op). Only the allowed types are
// instantiated, so kernels never see a type they cannot handle.
template <unsigned allowed, typename Fn>
decltype(auto) visit_dtypes(DType dtype, std::string_view what, Fn&& fn) {
  auto visit_one = [&]<DType d>() -> decltype(auto) {
    return fn.template operator()<typename dtype_traits<d>::type>();
  };
  switch (dtype) {
#define KILN_VISIT_CASE(d)                              \
  case DType::d:                                        \
    if constexpr ((allowed & dtype_bit(DType::d)) != 0) \
      return visit_one.template operator()<DType::d>(); \
    break;
    KILN_VISIT_CASE(f32)
    KILN_VISIT_CASE(f64)
    KILN_VISIT_CASE(f16)
    KILN_VISIT_CASE(bf16)
    KILN_VISIT_CASE(i32)
    KILN_VISIT_CASE(i64)
    KILN_VISIT_CASE(u8)
    KILN_VISIT_CASE(boolean)
#undef KILN_VISIT_CASE
    case DType::string:
      break;
  }
  const char* kind = allowed == kFloatingDTypes  ? "a floating"
                     : allowed == kNumericDTypes ? "a numeric"
                                                 : "a supported";
  throw Error(detail::concat(what, ": expected ", kind, " dtype, got ", dtype_name(dtype)));
}

template <typename Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  return visit_dtypes<kAllDTypes>(dtype, "dtype dispatch", std::forward<Fn>(fn));
}
template <typename Fn>
decltype(auto) visit_float_dtype(DType dtype, std::string_view what, Fn&& fn) {
  return visit_dtypes<kFloatingDTypes>(dtype, what, std::forward<Fn>(fn));
}
template <typename Fn>
decltype(auto) visit_numeric_dtype(DType dtype, std::string_view what, Fn&& fn) {
  return visit_dtypes<kNumericDTypes>(dtype, what, std::forward<Fn>(fn));
}

// The type arithmetic happens in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<float16> {
  using type = float;
};
template <>
struct compute_type<bfloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename compute_type<T>::type;

}  // namespace kiln
