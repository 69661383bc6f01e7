#pragma once
// Host-side helpers the CUDA kernel files share: typed data pointers and dtype dispatch.
#include "framework/core/dtype.h"
#include "framework/ops/elementwise_dispatch.h"
#include "framework/tensor/tensor.h"

namespace kiln::cuda {

template <typename T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}

using fn::Types;

template <Types types, typename Body>
void visit(DType dtype, Body&& body) {
  fn::visit_types<types>(dtype, body);
}

}  // namespace kiln::cuda
