#pragma once
// Small tensor helpers the metrics share, each the kiln form of a Keras utility the metrics call.
// Rank alignment and safe division are the losses' own (losses/reduction.h), as in Keras.
#include <cstdint>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/losses/reduction.h"

namespace kiln::metrics {

using losses::divide_no_nan;
using losses::squeeze_or_expand_to_same_rank;

// x as float32, the dtype every metric computes and keeps its state in.
Tensor to_float32(const Tensor& x);

// The axes [from, rank) of a reduction over trailing axes.
std::vector<int64_t> trailing_axes(int from, int rank);

}  // namespace kiln::metrics
