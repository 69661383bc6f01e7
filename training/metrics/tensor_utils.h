#pragma once
// Small tensor helpers the metrics share, each the kiln form of a Keras utility the metrics call.
#include <cstdint>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::metrics {

// keras.losses.loss.squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer
// tensor's last dim is 1, squeeze it, or (expand_rank_1) give a rank-1 partner a trailing 1.
// Dims unknown while tracing count as "not 1", as Keras's None does.
std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(Tensor a, Tensor b,
                                                         bool expand_rank_1 = true);

// a / b, and 0 where b is 0 (ops.divide_no_nan): a metric with no samples yet reads 0.
Tensor divide_no_nan(const Tensor& a, const Tensor& b);

// x as float32, the dtype every metric computes and keeps its state in.
Tensor to_float32(const Tensor& x);

// The axes [from, rank) of a reduction over trailing axes.
std::vector<int64_t> trailing_axes(int from, int rank);

}  // namespace kiln::metrics
