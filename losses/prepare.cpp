#include "kiln/losses/prepare.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/reduction.h"

namespace kiln::losses::internal {
bool same_known_dims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (a[i] != b[i] && a[i] != Shape::kUnknownDim && b[i] != Shape::kUnknownDim) return false;
  return true;
}

DType compute_dtype(DType dtype) {
  return dtype == DType::f64 ? DType::f64 : DType::f32;
}

Tensor prediction(const Tensor& y_pred) {
  return ops::cast(y_pred, compute_dtype(y_pred.dtype()));
}

Aligned align(const Tensor& y_true, const Tensor& y_pred, std::string_view loss) {
  KILN_CHECK(y_true.defined() && y_pred.defined(), loss, ": y_true and y_pred must be defined");
  const Tensor pred = prediction(y_pred);
  const auto [t, p] = squeeze_or_expand_to_same_rank(ops::cast(y_true, pred.dtype()), pred);
  KILN_CHECK(same_known_dims(t.shape(), p.shape()), loss, ": y_true of shape ", y_true.shape(),
             " and y_pred of shape ", y_pred.shape(), " must have the same shape");
  return {t, p};
}

Tensor scalar_like(const Tensor& x, double value) {
  return scalar(value, x.dtype(), x.device());
}

}  // namespace kiln::losses::internal
