#pragma once
// A tensor's values summarized as TensorBoard draws them: count, sum, sum of squares, range and
// counts in equal-width buckets.
#include <cstdint>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::tensorboard {

struct Histogram {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit;  // right edges, ascending
  std::vector<double> bucket;        // counts
};

// `buckets` equal-width buckets over [min, max] (one bucket when every value is equal, none for
// an empty tensor); non-finite values are left out.
Histogram histogram(const Tensor& values, int buckets = 30);

}  // namespace kiln::tensorboard
