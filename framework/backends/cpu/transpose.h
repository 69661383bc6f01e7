#pragma once
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::cpu {
// out = in with axes permuted (out.shape[i] == in.shape[perm[i]]).
void transpose_copy(const Tensor& in, const Tensor& out, const std::vector<int64_t>& perm);
}  // namespace kiln::cpu
