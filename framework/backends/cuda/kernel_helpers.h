#pragma once
// Host-side helpers the CUDA kernel files share: typed data pointers, the index dtypes.
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

template <typename T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}

// The dtypes gather's and scatter_add's indices may have.
inline constexpr unsigned kIndexDTypes =
    dtype_bit(DType::i32) | dtype_bit(DType::i64) | dtype_bit(DType::u8);

}  // namespace kiln::cuda
