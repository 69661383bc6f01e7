#include "kiln/layers/normalization/normalize.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::layers {

DType statistics_dtype(DType input) {
  return input == DType::f16 || input == DType::bf16 ? DType::f32 : input;
}

Tensor broadcast_param(const Tensor& param, const std::vector<int>& axes, int rank) {
  if (axes.size() == 1 && axes[0] == rank - 1) return param;
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < axes.size(); ++i)
    dims[static_cast<size_t>(axes[i])] = param.shape()[static_cast<int>(i)];
  return ops::reshape(param, Shape(std::move(dims)));
}

Tensor normalize(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& gamma,
                 const Tensor& beta, double epsilon) {
  Tensor inv = ops::rsqrt(variance + epsilon);
  if (gamma.defined()) inv = inv * gamma;
  Tensor shift = -(mean * inv);
  if (beta.defined()) shift = shift + beta;
  return x * inv + shift;
}

}  // namespace kiln::layers
