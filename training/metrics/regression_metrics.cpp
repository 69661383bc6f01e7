#include "kiln/training/metrics/regression_metrics.h"

#include <memory>
#include <utility>

#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {

// The losses' functions (as Keras's metrics call them), in the metrics' float32.
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  return losses::mean_squared_error(to_float32(y_true), to_float32(y_pred));
}

Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred) {
  return losses::mean_absolute_error(to_float32(y_true), to_float32(y_pred));
}

MeanSquaredError::MeanSquaredError(std::string name)
    : MeanMetricWrapper(mean_squared_error, std::move(name)) {}

MetricPtr MeanSquaredError::from_config(const Config& config) {
  return std::make_shared<MeanSquaredError>(
      read_common_config(config, "MeanSquaredError", "mean_squared_error"));
}

MeanAbsoluteError::MeanAbsoluteError(std::string name)
    : MeanMetricWrapper(mean_absolute_error, std::move(name)) {}

MetricPtr MeanAbsoluteError::from_config(const Config& config) {
  return std::make_shared<MeanAbsoluteError>(
      read_common_config(config, "MeanAbsoluteError", "mean_absolute_error"));
}

RootMeanSquaredError::RootMeanSquaredError(std::string name) : Mean(std::move(name)) {}

void RootMeanSquaredError::update_state(const Tensor& y_true, const Tensor& y_pred,
                                        const Tensor& sample_weight) {
  with_error_context(y_true, y_pred, sample_weight, [&] {
    // Keras's RootMeanSquaredError: the squared error per element, weighted as a Mean.
    const auto [t, p] = squeeze_or_expand_to_same_rank(to_float32(y_true), to_float32(y_pred));
    accumulate(ops::square(t - p), sample_weight);
  });
}

Tensor RootMeanSquaredError::result() const {
  return ops::sqrt(Mean::result());
}

MetricPtr RootMeanSquaredError::from_config(const Config& config) {
  return std::make_shared<RootMeanSquaredError>(
      read_common_config(config, "RootMeanSquaredError", "root_mean_squared_error"));
}

}  // namespace kiln::metrics
