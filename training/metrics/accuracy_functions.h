#pragma once
// Keras's per-sample accuracy functions (keras.metrics.accuracy, binary_accuracy, ...): 1.0 where
// a sample is right, 0.0 where not, as float32 of the per-sample shape. The accuracy metrics
// average them; MeanMetricWrapper accepts them by name.
#include <cstdint>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::metrics {

// y_true == y_pred (y_true in y_pred's dtype).
Tensor accuracy(const Tensor& y_true, const Tensor& y_pred);
// y_true == (y_pred > threshold), the comparison in y_true's dtype.
Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold = 0.5);
// argmax(y_true) == argmax(y_pred) over the last axis (one-hot labels).
Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
// y_true == argmax(y_pred): integer class labels, [B] or [B, 1], int or float.
Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);
// argmax(y_true) is among the k highest-scored classes of y_pred (ties at the boundary count).
Tensor top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int64_t k = 5);
// The integer label y_true is among the k highest-scored classes of y_pred.
Tensor sparse_top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int64_t k = 5);

// tf.math.in_top_k over the last axis of predictions: a target is in unless k classes score
// strictly higher; out-of-range targets and rows with a non-finite score are not. Bool, of the
// targets' shape.
Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int64_t k);

}  // namespace kiln::metrics
