#pragma once
// Host-side helpers the CUDA kernel files share: typed data pointers.
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

template <typename T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}

}  // namespace kiln::cuda
