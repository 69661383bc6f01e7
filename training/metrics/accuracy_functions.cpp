#include "kiln/training/metrics/accuracy_functions.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {
namespace {

Tensor matches(const Tensor& a, const Tensor& b) {
  return ops::cast(ops::equal(a, b), DType::f32);
}

}  // namespace

Tensor accuracy(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = squeeze_or_expand_to_same_rank(ops::cast(y_true, y_pred.dtype()), y_pred);
  return matches(t, p);
}

Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold) {
  const auto [t, p] = squeeze_or_expand_to_same_rank(y_true, y_pred);
  return matches(t, ops::cast(ops::greater(p, threshold), t.dtype()));
}

Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  Tensor labels = ops::argmax(y_true, -1);
  const Tensor label_shape = labels;
  // Labels with an extra trailing 1 ([B, 1, C] against [B, C]) lose it, as in Keras.
  const bool squeezed = labels.rank() == y_pred.rank();
  if (squeezed) labels = ops::squeeze(labels, {-1});
  const Tensor m = matches(labels, ops::argmax(y_pred, -1));
  return squeezed ? ops::reshape_like(m, label_shape) : m;
}

Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  // Labels compare as floats, as Keras converts them to y_pred's dtype (1.5 matches nothing).
  Tensor labels = to_float32(y_true);
  if (labels.rank() == y_pred.rank() && labels.shape().dim(-1) == 1)
    labels = ops::squeeze(labels, {-1});
  Tensor m = matches(labels, to_float32(ops::argmax(y_pred, -1)));
  if (m.rank() > 1 && m.shape().dim(-1) == 1) m = ops::squeeze(m, {-1});
  return m;
}

Tensor top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int64_t k) {
  return ops::cast(in_top_k(ops::argmax(y_true, -1), y_pred, k), DType::f32);
}

Tensor sparse_top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int64_t k) {
  // Keras casts labels to int32 (truncating floats) and flattens [B, 1] labels to [B], then gives
  // the matches the labels' shape back.
  Tensor labels = is_floating(y_true.dtype()) ? ops::cast(y_true, DType::i64) : y_true;
  if (labels.rank() == y_pred.rank()) labels = ops::squeeze(labels, {-1});
  return ops::reshape_like(ops::cast(in_top_k(labels, y_pred, k), DType::f32), y_true);
}

Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int64_t k) {
  const int64_t classes = predictions.rank() > 0 ? predictions.shape().dim(-1) : -1;
  KILN_CHECK(classes >= 0, "in_top_k: the class axis (last) of predictions ",
             describe(predictions.meta()), " must be known");
  KILN_CHECK(targets.rank() + 1 == predictions.rank(), "in_top_k: targets ",
             describe(targets.meta()), " must have one axis less than predictions ",
             describe(predictions.meta()));
  const Tensor ids = ops::cast(targets, DType::i64);
  const Tensor target_score =
      ops::sum(ops::where(ops::one_hot(ids, classes, DType::boolean), predictions,
                          scalar(0, predictions.dtype(), predictions.device())),
               {-1}, true);
  const Tensor higher =
      ops::sum(ops::cast(ops::greater(predictions, target_score), DType::f32), {-1});
  // x - x is 0 exactly for finite x, NaN for inf and NaN.
  const Tensor non_finite =
      ops::sum(ops::cast(ops::not_equal(predictions - predictions, ops::zeros_like(predictions)),
                         DType::f32),
               {-1});
  const Tensor in_range = ops::logical_and(ops::logical_not(ops::less(ids, 0.0)),
                                           ops::less(ids, static_cast<double>(classes)));
  return ops::logical_and(ops::logical_and(in_range, ops::less(higher, static_cast<double>(k))),
                          ops::equal(non_finite, ops::zeros_like(non_finite)));
}

}  // namespace kiln::metrics
