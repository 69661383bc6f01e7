#pragma once
// Keras's regression metrics and the per-sample functions behind them.
#include <string>

#include "kiln/training/metrics/reduction_metrics.h"

namespace kiln::metrics {

// mean((y_true - y_pred)^2) and mean(|y_true - y_pred|) over the last axis, as the Keras
// functions (so 1-D inputs give one value per batch, which Mean then counts once).
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);

class MeanSquaredError : public MeanMetricWrapper {
 public:
  explicit MeanSquaredError(std::string name = "mean_squared_error");
  std::string class_name() const override { return "MeanSquaredError"; }
  static MetricPtr from_config(const Config& config);
};

class MeanAbsoluteError : public MeanMetricWrapper {
 public:
  explicit MeanAbsoluteError(std::string name = "mean_absolute_error");
  std::string class_name() const override { return "MeanAbsoluteError"; }
  static MetricPtr from_config(const Config& config);
};

// sqrt of the running mean of squared errors (each sample's errors averaged first).
class RootMeanSquaredError : public Mean {
 public:
  explicit RootMeanSquaredError(std::string name = "root_mean_squared_error");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  Tensor result() const override;
  std::string class_name() const override { return "RootMeanSquaredError"; }
  static MetricPtr from_config(const Config& config);
};

}  // namespace kiln::metrics
