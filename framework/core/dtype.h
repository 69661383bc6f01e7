#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "framework/core/error.h"
#include "framework/core/half.h"

namespace kiln {

enum class DType : uint8_t { f32, f64, f16, bf16, i32, i64, u8, boolean };

inline constexpr int kNumDTypes = 8;

size_t dtype_size(DType dtype);
std::string_view dtype_name(DType dtype);  // Keras/NumPy names: float32, int64, bool, ...
DType dtype_from_name(std::string_view name);
bool is_floating(DType dtype);
bool is_integral(DType dtype);  // integers and bool

// The result type of a binary op on two dtypes: bool < u8 < i32 < i64 < {f16, bf16} < f32 < f64;
// f16 with bf16 gives f32 (neither holds the other).
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& out, DType dtype);

// C++ type for each dtype, for kernels: dtype_of<T>() and DTypeType<DType>.
template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::f32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::f64;
}
template <>
constexpr DType dtype_of<float16>() {
  return DType::f16;
}
template <>
constexpr DType dtype_of<bfloat16>() {
  return DType::bf16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::i32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::i64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::u8;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::boolean;
}

// Calls fn.template operator()<T>() with T the C++ type of dtype. The *_float variant accepts
// only floating types and the *_numeric one every type but bool; other dtypes raise an error
// naming `what` (usually the op).
template <typename Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32:
      return fn.template operator()<float>();
    case DType::f64:
      return fn.template operator()<double>();
    case DType::f16:
      return fn.template operator()<float16>();
    case DType::bf16:
      return fn.template operator()<bfloat16>();
    case DType::i32:
      return fn.template operator()<int32_t>();
    case DType::i64:
      return fn.template operator()<int64_t>();
    case DType::u8:
      return fn.template operator()<uint8_t>();
    case DType::boolean:
      return fn.template operator()<bool>();
  }
  throw Error("unknown dtype");
}

template <typename Fn>
decltype(auto) visit_float_dtype(DType dtype, std::string_view what, Fn&& fn) {
  switch (dtype) {
    case DType::f32:
      return fn.template operator()<float>();
    case DType::f64:
      return fn.template operator()<double>();
    case DType::f16:
      return fn.template operator()<float16>();
    case DType::bf16:
      return fn.template operator()<bfloat16>();
    default:
      break;
  }
  throw Error(detail::concat(what, ": expected a floating dtype, got ", dtype_name(dtype)));
}

template <typename Fn>
decltype(auto) visit_numeric_dtype(DType dtype, std::string_view what, Fn&& fn) {
  switch (dtype) {
    case DType::f32:
      return fn.template operator()<float>();
    case DType::f64:
      return fn.template operator()<double>();
    case DType::f16:
      return fn.template operator()<float16>();
    case DType::bf16:
      return fn.template operator()<bfloat16>();
    case DType::i32:
      return fn.template operator()<int32_t>();
    case DType::i64:
      return fn.template operator()<int64_t>();
    case DType::u8:
      return fn.template operator()<uint8_t>();
    default:
      break;
  }
  throw Error(detail::concat(what, ": expected a numeric dtype, got ", dtype_name(dtype)));
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
