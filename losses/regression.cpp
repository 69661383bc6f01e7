// Regression losses: Keras's formulas (keras/src/losses/losses.py), term for term, so values and
// gradients match Keras's.
#include <numbers>

#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/prepare.h"

namespace kiln::losses {

using internal::align;
using internal::kEpsilon;
using internal::scalar_like;

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = align(y_true, y_pred, "mean_squared_error");
  return ops::mean(ops::square(t - p), {-1});
}

Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = align(y_true, y_pred, "mean_absolute_error");
  return ops::mean(ops::abs(t - p), {-1});
}

Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = align(y_true, y_pred, "mean_absolute_percentage_error");
  const Tensor diff = ops::abs((t - p) / ops::maximum(ops::abs(t), kEpsilon));
  return ops::mean(diff, {-1}) * 100.0;
}

Tensor huber(const Tensor& y_true, const Tensor& y_pred, double delta) {
  const auto [t, p] = align(y_true, y_pred, "huber");
  const Tensor error = p - t;
  const Tensor abs_error = ops::abs(error);
  const Tensor quadratic = ops::square(error) * 0.5;
  const Tensor linear = abs_error * delta - 0.5 * delta * delta;
  return ops::mean(
      ops::where(ops::less_equal(abs_error, scalar_like(abs_error, delta)), quadratic, linear),
      {-1});
}

Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = align(y_true, y_pred, "log_cosh");
  // log(cosh(x)) = x + softplus(-2x) - log(2), which neither overflows nor cancels.
  const Tensor x = p - t;
  return ops::mean(x + ops::softplus(x * -2.0) - std::numbers::ln2, {-1});
}

namespace {
// x / max(||x||, 1e-7) along axis, written as Keras's ops.normalize writes it (x * rsqrt(...)).
Tensor l2_normalize(const Tensor& x, int64_t axis) {
  const Tensor inv_norm = ops::rsqrt(ops::sum(ops::square(x), {axis}, true));
  return x * ops::minimum(inv_norm, 1.0 / kEpsilon);
}
}  // namespace

Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int64_t axis) {
  const auto [t, p] = align(y_true, y_pred, "cosine_similarity");
  return ops::neg(ops::sum(l2_normalize(t, axis) * l2_normalize(p, axis), {axis}));
}

}  // namespace kiln::losses
