#pragma once
// Keras's accuracy metrics: the running mean of an accuracy function (accuracy_functions.h).
#include <cstdint>
#include <string>

#include "kiln/training/metrics/reduction_metrics.h"

namespace kiln::metrics {

class Accuracy : public MeanMetricWrapper {
 public:
  explicit Accuracy(std::string name = "accuracy");
  std::string class_name() const override { return "Accuracy"; }
  static MetricPtr from_config(const Config& config);
};

class BinaryAccuracy : public MeanMetricWrapper {
 public:
  explicit BinaryAccuracy(std::string name = "binary_accuracy", double threshold = 0.5);
  std::string class_name() const override { return "BinaryAccuracy"; }
  Config get_config() const override;
  static MetricPtr from_config(const Config& config);

 private:
  double threshold_;
};

class CategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit CategoricalAccuracy(std::string name = "categorical_accuracy");
  std::string class_name() const override { return "CategoricalAccuracy"; }
  static MetricPtr from_config(const Config& config);
};

class SparseCategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy");
  std::string class_name() const override { return "SparseCategoricalAccuracy"; }
  static MetricPtr from_config(const Config& config);
};

class TopKCategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit TopKCategoricalAccuracy(int64_t k = 5, std::string name = "top_k_categorical_accuracy");
  std::string class_name() const override { return "TopKCategoricalAccuracy"; }
  Config get_config() const override;
  static MetricPtr from_config(const Config& config);

 private:
  int64_t k_;
};

// Keras's from_sorted_ids=True (y_pred holding class ids) is not supported.
class SparseTopKCategoricalAccuracy : public MeanMetricWrapper {
 public:
  explicit SparseTopKCategoricalAccuracy(int64_t k = 5,
                                         std::string name = "sparse_top_k_categorical_accuracy");
  std::string class_name() const override { return "SparseTopKCategoricalAccuracy"; }
  Config get_config() const override;
  static MetricPtr from_config(const Config& config);

 private:
  int64_t k_;
};

}  // namespace kiln::metrics
