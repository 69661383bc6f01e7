#pragma once
// What every built-in loss does to its inputs before the formula, as Keras's loss functions do:
// predictions computed in float32 at least, labels cast to the predictions' dtype, and the two
// brought to one rank (a [B] label against a [B, 1] prediction).
#include <string_view>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::losses::internal {

// Keras's backend.epsilon(): how far probabilities are kept from 0 and 1 before a log.
inline constexpr double kEpsilon = 1e-7;

// The dtype a loss computes in for predictions of `dtype`: float64 stays, everything else
// (float16, bfloat16, integers) computes in float32.
DType compute_dtype(DType dtype);

// y_pred cast to its compute dtype.
Tensor prediction(const Tensor& y_pred);

// Equal ranks and equal dims where both are known (unknown dims are checked by the ops when
// they run).
bool same_known_dims(const Shape& a, const Shape& b);

struct Aligned {
  Tensor y_true;
  Tensor y_pred;
};
// y_pred cast to its compute dtype and y_true to the same, squeezed or expanded to one rank
// (squeeze_or_expand_to_same_rank); then their shapes must agree (unknown dims aside), or the
// error names `loss` and both shapes.
Aligned align(const Tensor& y_true, const Tensor& y_pred, std::string_view loss);

// A scalar of x's dtype and device, for comparisons and where().
Tensor scalar_like(const Tensor& x, double value);

}  // namespace kiln::losses::internal
