#pragma once
// Keras's reduction metrics: Sum, Mean, and MeanMetricWrapper (the mean of a per-sample
// function), which the accuracy and regression metrics build on.
#include <functional>
#include <string>

#include "kiln/training/metrics/metric.h"

namespace kiln::metrics {

// A per-sample metric function (keras.metrics.binary_accuracy, mean_squared_error, ...): one
// value per sample, or per position for sequence outputs.
using PerSampleFn = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;

// The (weighted) sum of values: total += sum(values * sample_weight).
class Sum : public Metric {
 public:
  explicit Sum(std::string name = "sum");
  void update_values(const Tensor& values, const Tensor& sample_weight = {});
  // As a compiled metric, y_pred holds the values and y_true is ignored.
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  Tensor result() const override;
  std::string class_name() const override { return "Sum"; }
  static MetricPtr from_config(const Config& config);

 private:
  Variable total_;
};

// The (weighted) mean of values. As in Keras, values of rank > 1 are first averaged over their
// trailing axes, so each sample (row) counts once; with sample weights the count grows by the
// sum of the weights.
class Mean : public Metric {
 public:
  explicit Mean(std::string name = "mean");
  void update_values(const Tensor& values, const Tensor& sample_weight = {});
  // As a compiled metric, y_pred holds the values and y_true is ignored.
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  Tensor result() const override;
  std::string class_name() const override { return "Mean"; }
  static MetricPtr from_config(const Config& config);

 protected:
  // update_values without the error context, for subclasses that add their own.
  void accumulate(const Tensor& values, const Tensor& sample_weight);

 private:
  Variable total_;
  Variable count_;
};

// The mean of fn(y_true, y_pred) over all samples seen. fn_name is the name fn is registered
// under (registry.h), saved as "fn" in the config; the built-in subclasses leave it empty, since
// their class names the function.
class MeanMetricWrapper : public Mean {
 public:
  MeanMetricWrapper(PerSampleFn fn, std::string name, std::string fn_name = "");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  std::string class_name() const override { return "MeanMetricWrapper"; }
  Config get_config() const override;

 private:
  PerSampleFn fn_;
  std::string fn_name_;
};

}  // namespace kiln::metrics
