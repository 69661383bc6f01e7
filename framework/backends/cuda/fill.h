#pragma once
// Fills device tensors on the device's stream.
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

// Every element one value, converted to the dtype (pad's border, size_of's scalar).
void fill(const Tensor& t, double value);
// An int64 tensor's elements 0, 1, 2, ... (range_like, scatter_add's positions).
void iota(const Tensor& t);

}  // namespace kiln::cuda
