#pragma once
// The golden cases of keras.metrics (metric_goldens.inc, written by
// scripts/golden/generate_metric_goldens.py) and helpers that turn them into tensors.
#include <cstdint>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::metrics::testing {

struct MetricBatch {
  std::vector<int64_t> true_shape;
  std::vector<double> y_true;
  std::vector<int64_t> pred_shape;
  std::vector<double> y_pred;
  std::vector<int64_t> weight_shape;
  std::vector<double> sample_weight;
};

struct MetricGolden {
  const char* name;
  const char* config;  // keras.metrics.serialize(metric) as JSON
  bool int_labels;     // y_true is int64 (else float32)
  std::vector<MetricBatch> batches;
  // result() after each batch, then after reset_state(): without and with sample weights.
  std::vector<double> unweighted;
  std::vector<double> weighted;
};

const std::vector<MetricGolden>& metric_goldens();

inline DType label_dtype(const MetricGolden& golden) {
  return golden.int_labels ? DType::i64 : DType::f32;
}
inline Tensor y_true(const MetricGolden& golden, const MetricBatch& batch) {
  return from_vector(batch.y_true, Shape(batch.true_shape), label_dtype(golden));
}
inline Tensor y_pred(const MetricBatch& batch) {
  return from_vector(batch.y_pred, Shape(batch.pred_shape), DType::f32);
}
inline Tensor sample_weight(const MetricBatch& batch) {
  return from_vector(batch.sample_weight, Shape(batch.weight_shape), DType::f32);
}

// The golden's Keras config, as kiln writes it: Keras serializes a tensor argument
// (label_weights) as {"class_name": "__tensor__", ...} and a function ("fn") as a map naming it;
// kiln writes a list and the name.
Config keras_config_in_kiln_form(const MetricGolden& golden);

// Keras's tolerance for float32 results: 1e-5 relative (absolute near 0).
void expect_results_near(const std::vector<double>& got, const std::vector<double>& want);

}  // namespace kiln::metrics::testing
