#pragma once
// Sets every element of a device tensor to one value, converted to its dtype, on the device's
// stream (pad's border, size_of's scalar).
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cuda {

void fill(const Tensor& t, double value);

}  // namespace kiln::cuda
