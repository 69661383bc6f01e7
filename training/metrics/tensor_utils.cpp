#include "kiln/training/metrics/tensor_utils.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::metrics {

Tensor to_float32(const Tensor& x) {
  return x.dtype() == DType::f32 ? x : ops::cast(x, DType::f32);
}

std::vector<int64_t> trailing_axes(int from, int rank) {
  std::vector<int64_t> axes;
  for (int i = from; i < rank; ++i) axes.push_back(i);
  return axes;
}

}  // namespace kiln::metrics
