#pragma once
// The arithmetic BatchNormalization and LayerNormalization share.
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

// Statistics are computed in at least float32: half precision overflows on sums of squares.
DType statistics_dtype(DType input);

// A parameter of the dims of `axes` (sorted) reshaped to broadcast against a tensor of `rank`
// (size 1 on the other axes); unchanged when `axes` is just the last axis.
Tensor broadcast_param(const Tensor& param, const std::vector<int>& axes, int rank);

// (x - mean) * rsqrt(variance + epsilon) * gamma + beta, written as x * inv + (beta - mean * inv)
// like tf.nn.batch_normalization. gamma and beta may be undefined (no scale, no center).
Tensor normalize(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& gamma,
                 const Tensor& beta, double epsilon);

}  // namespace kiln::layers
