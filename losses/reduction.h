#pragma once
// How per-sample losses become a loss, as Keras 3 does it (keras/src/losses/loss.py): a mask and
// sample weights merge into one weight, the weighted values are summed, and the sum is divided
// by a count that the reduction names.
#include <string_view>
#include <utility>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::losses {

// Keras names. "sum_over_batch_size" (the default) and "mean" both divide the weighted sum by
// the number of values (Keras 3 treats them alike); "mean_with_sample_weight" divides by the sum
// of the sample weights; "sum" does not divide; "none" returns the weighted values.
enum class Reduction { sum_over_batch_size, sum, mean, none, mean_with_sample_weight };
// An unknown name is an error naming it and the closest known names.
Reduction parse_reduction(std::string_view name);
std::string_view reduction_name(Reduction reduction);

// Per-sample losses plus the positions that count (undefined = all). Keras attaches such a mask
// to the values of losses that leave positions out themselves (sparse categorical crossentropy's
// ignore_class), and the reduction drops them from both the sum and the count.
struct MaskedLosses {
  Tensor values;
  Tensor mask;
};

// Keras's squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer shape ends
// in a known 1, that axis is squeezed, or, when the shorter one has rank 1 and expand_rank_1 is
// set, the shorter one gains a trailing axis instead.
std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(const Tensor& x1, const Tensor& x2,
                                                         bool expand_rank_1 = true);

// a / b, and 0 (b's dtype) where b is 0 (Keras's divide_no_nan; the gradient is 0 there too): a
// mean over no positions, or a metric with no samples yet, reads 0.
Tensor divide_no_nan(const Tensor& a, const Tensor& b);

// Keras's reduce_weighted_values: values * sample_weight (both may be undefined but values),
// with `mask` (bool or 0/1) zeroing positions and, for the averaging reductions, scaling the
// remaining ones by total / valid so the mean runs over the valid positions only. `loss_name`
// names the loss in errors about sample_weight or mask shapes.
Tensor reduce_weighted_values(const Tensor& values, const Tensor& sample_weight, const Tensor& mask,
                              Reduction reduction, std::string_view loss_name);

}  // namespace kiln::losses
