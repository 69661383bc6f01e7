// Hinge loss, with Keras's conversion of 0/1 labels to -1/1.
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/prepare.h"

namespace kiln::losses {

Tensor hinge(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = internal::align(y_true, y_pred, "hinge");
  // Keras converts the labels only when every one of them is 0 or 1: a decision over the whole
  // tensor, made here as a scalar so it also holds inside traced graphs.
  const Tensor is_binary_label = ops::logical_or(ops::equal(t, internal::scalar_like(t, 0)),
                                                 ops::equal(t, internal::scalar_like(t, 1)));
  const Tensor all_binary = ops::greater(ops::min(ops::cast(is_binary_label, t.dtype())), 0.5);
  const Tensor labels = ops::where(all_binary, t * 2.0 - 1.0, t);
  return ops::mean(ops::maximum(1.0 - labels * p, 0.0), {-1});
}

}  // namespace kiln::losses
