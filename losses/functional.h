#pragma once
// Keras's loss functions (keras.losses.mean_squared_error, ...): per-sample losses, y_pred's shape
// without its last axis (or without `axis` where there is one), unweighted and unreduced. They
// compute in float32 at least and cast y_true to y_pred's dtype (sparse labels stay integers);
// a [B] y_true against a [B, 1] y_pred (and the reverse) is brought to one rank first.
#include <cstdint>
#include <optional>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/losses/reduction.h"

namespace kiln::losses {

// ---- regression ----
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);
// 100 * mean(|y_true - y_pred| / max(|y_true|, 1e-7)).
Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred);
// Quadratic for errors up to delta, linear beyond.
Tensor huber(const Tensor& y_true, const Tensor& y_pred, double delta = 1.0);
Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred);
// -(cosine similarity) along `axis`: -1 for the same direction, 0 for orthogonal vectors.
Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int64_t axis = -1);

// ---- probabilistic ----
// Probabilities are clipped to [1e-7, 1 - 1e-7] unless from_logits. label_smoothing moves the
// labels towards 0.5; the per-sample loss is the mean over `axis`.
Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
                           double label_smoothing = 0.0, int64_t axis = -1);
// One-hot (or distribution) labels along `axis`; label_smoothing mixes in the uniform
// distribution. Probabilities are renormalized along `axis` and clipped unless from_logits.
Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred,
                                bool from_logits = false, double label_smoothing = 0.0,
                                int64_t axis = -1);
// Integer (or whole float) class labels of y_pred's shape without the class axis (the last), or
// with a trailing 1. Positions labelled ignore_class get a loss of 0.
Tensor sparse_categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred,
                                       bool from_logits = false,
                                       std::optional<int64_t> ignore_class = std::nullopt);
// The same, with the mask of the positions not labelled ignore_class (undefined without one).
MaskedLosses sparse_categorical_crossentropy_masked(
    const Tensor& y_true, const Tensor& y_pred, bool from_logits = false,
    std::optional<int64_t> ignore_class = std::nullopt);
// sum(y_true * log(y_true / y_pred)) with both clipped to [1e-7, 1].
Tensor kl_divergence(const Tensor& y_true, const Tensor& y_pred);

// ---- hinge ----
// mean(max(1 - y_true * y_pred, 0)); labels are -1/1, or 0/1 when every label is 0 or 1 (then
// mapped to -1/1, as Keras does).
Tensor hinge(const Tensor& y_true, const Tensor& y_pred);

}  // namespace kiln::losses
