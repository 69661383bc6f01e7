#include "kiln/training/metrics/regression_metrics.h"

#include <memory>
#include <utility>

#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {
namespace {

// y_true - y_pred in float32 after Keras's rank alignment.
Tensor error(const Tensor& y_true, const Tensor& y_pred) {
  const auto [t, p] = squeeze_or_expand_to_same_rank(to_float32(y_true), to_float32(y_pred));
  return t - p;
}

}  // namespace

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  return ops::mean(ops::square(error(y_true, y_pred)), {-1});
}

Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred) {
  return ops::mean(ops::abs(error(y_true, y_pred)), {-1});
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
  with_error_context(y_true, y_pred, sample_weight,
                     [&] { accumulate(ops::square(error(y_true, y_pred)), sample_weight); });
}

Tensor RootMeanSquaredError::result() const {
  return ops::sqrt(Mean::result());
}

MetricPtr RootMeanSquaredError::from_config(const Config& config) {
  return std::make_shared<RootMeanSquaredError>(
      read_common_config(config, "RootMeanSquaredError", "root_mean_squared_error"));
}

}  // namespace kiln::metrics
