#pragma once
// Element conversion between kiln's dtypes (the cast op, from_vector, item, to_vector).
#include <cstddef>
#include <type_traits>

#include "kiln/framework/core/dtype.h"

namespace kiln {

// Host and device code (KILN_HD): CUDA kernels convert with it too.
template <typename To, typename From>
KILN_HD inline To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, float16> || std::is_same_v<From, bfloat16>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, float16> || std::is_same_v<To, bfloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_same_v<From, bool>) {
    // Through its byte: gcc vectorizes a loop converting bytes, and a choice between 1 and 0
    // read from memory became a branch per element (docs/framework.md, "Measured choices").
    return static_cast<To>(static_cast<unsigned char>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Converts n elements between host buffers of the given dtypes.
void convert_buffer(const void* src, DType src_dtype, void* dst, DType dst_dtype, size_t n);

}  // namespace kiln
