#pragma once
// One batch as the steps take it: the model's inputs, its targets (one per output) and optional
// per-sample weights (empty or one tensor).
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln {

struct Batch {
  std::vector<Tensor> x;
  std::vector<Tensor> y;
  std::vector<Tensor> sample_weight;
};

}  // namespace kiln
