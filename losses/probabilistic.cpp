// Probabilistic losses: Keras's formulas with the TensorFlow backend's details (which axis is
// renormalized, where the 1e-7 clipping happens), so values and gradients match Keras's.
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/prepare.h"

namespace kiln::losses {

using internal::align;
using internal::kEpsilon;
using internal::scalar_like;

Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits,
                           double label_smoothing, int64_t axis) {
  auto [t, p] = align(y_true, y_pred, "binary_crossentropy");
  if (label_smoothing != 0) t = t * (1.0 - label_smoothing) + 0.5 * label_smoothing;
  Tensor elementwise;
  if (from_logits) {
    // log(1 + e^x) - x t: softplus is exact for large |x|, and its gradient sigmoid(x) - t is
    // TensorFlow's sigmoid_cross_entropy_with_logits gradient everywhere (also at x = 0).
    elementwise = ops::softplus(p) - p * t;
  } else {
    const Tensor o = ops::clip(p, kEpsilon, 1.0 - kEpsilon);
    elementwise = ops::neg(t * ops::log(o) + (1.0 - t) * ops::log(1.0 - o));
  }
  return ops::mean(elementwise, {axis});
}

Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits,
                                double label_smoothing, int64_t axis) {
  auto [t, p] = align(y_true, y_pred, "categorical_crossentropy");
  if (label_smoothing != 0) {
    // Keras counts the classes along the last axis, whatever `axis` is.
    const Tensor num_classes = ops::size_of(t, {-1}, t.dtype());
    t = t * (1.0 - label_smoothing) + label_smoothing / num_classes;
  }
  if (from_logits) return ops::neg(ops::sum(t * ops::log_softmax(p, axis), {axis}));
  const Tensor o = ops::clip(p / ops::sum(p, {axis}, true), kEpsilon, 1.0 - kEpsilon);
  return ops::neg(ops::sum(t * ops::log(o), {axis}));
}

MaskedLosses sparse_categorical_crossentropy_masked(const Tensor& y_true, const Tensor& y_pred,
                                                    bool from_logits,
                                                    std::optional<int64_t> ignore_class) {
  constexpr std::string_view kName = "sparse_categorical_crossentropy";
  KILN_CHECK(y_true.defined() && y_pred.defined(), kName, ": y_true and y_pred must be defined");
  KILN_CHECK(y_pred.rank() >= 1, kName, ": y_pred of shape ", y_pred.shape(),
             " needs a class axis");
  Tensor p = internal::prediction(y_pred);
  Tensor labels = y_true;
  if (labels.rank() == p.rank() && labels.shape().dim(-1) == 1) labels = ops::squeeze(labels, {-1});
  std::vector<int64_t> sample_dims = p.shape().dims();
  sample_dims.pop_back();
  KILN_CHECK(internal::same_known_dims(labels.shape(), Shape(sample_dims)), kName,
             ": y_true of shape ", y_true.shape(), " and y_pred of shape ", y_pred.shape(),
             " do not match: y_true must have y_pred's shape without the class axis (or with a "
             "trailing 1 instead)");
  KILN_CHECK(labels.dtype() != DType::boolean, kName, ": y_true must hold class indices, got bool");
  // Float labels hold whole class numbers, as Keras accepts them.
  if (is_floating(labels.dtype())) labels = ops::cast(labels, DType::i64);

  Tensor valid;
  if (ignore_class) {
    // Ignored positions take class 0 and zero predictions, so nothing there is out of range or
    // not finite, and their loss and gradient are zeroed below.
    valid = ops::not_equal(labels, scalar_like(labels, static_cast<double>(*ignore_class)));
    labels = ops::where(valid, labels, scalar_like(labels, 0));
    p = ops::where(ops::expand_dims(valid, -1), p, scalar_like(p, 0));
  }
  // Probabilities become logits through their log, as the TensorFlow backend does: the softmax
  // of log(p) renormalizes them.
  const Tensor logits = from_logits ? p : ops::log(ops::clip(p, kEpsilon, 1.0 - kEpsilon));
  const Tensor picked =
      ops::take_along_axis(ops::log_softmax(logits, -1), ops::expand_dims(labels, -1), -1);
  Tensor values = ops::neg(ops::squeeze(picked, {-1}));
  if (ignore_class) values = ops::where(valid, values, scalar_like(values, 0));
  return {values, valid};
}

Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits,
                                       std::optional<int64_t> ignore_class) {
  return sparse_categorical_crossentropy_masked(y_true, y_pred, from_logits, ignore_class).values;
}

Tensor kl_divergence(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = align(y_true, y_pred, "kl_divergence");
  const Tensor tc = ops::clip(t, kEpsilon, 1.0);
  const Tensor pc = ops::clip(p, kEpsilon, 1.0);
  return ops::sum(tc * ops::log(tc / pc), {-1});
}

}  // namespace kiln::losses
