#include "kiln/training/metrics/accuracy_metrics.h"

#include <memory>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/training/metrics/accuracy_functions.h"
#include "kiln/training/metrics/metric_config.h"

namespace kiln::metrics {
namespace {

int64_t checked_k(int64_t k, std::string_view class_name) {
  KILN_CHECK(k >= 1, class_name, ": k must be at least 1, got ", k);
  return k;
}

}  // namespace

Accuracy::Accuracy(std::string name) : MeanMetricWrapper(accuracy, std::move(name)) {}

MetricPtr Accuracy::from_config(const Config& config) {
  return std::make_shared<Accuracy>(read_common_config(config, "Accuracy", "accuracy"));
}

BinaryAccuracy::BinaryAccuracy(std::string name, double threshold)
    : MeanMetricWrapper(
          [threshold](const Tensor& y_true, const Tensor& y_pred) {
            return binary_accuracy(y_true, y_pred, threshold);
          },
          std::move(name)),
      threshold_(threshold) {}

Config BinaryAccuracy::get_config() const {
  return MeanMetricWrapper::get_config().set("threshold", threshold_);
}

MetricPtr BinaryAccuracy::from_config(const Config& config) {
  std::string name = read_common_config(config, "BinaryAccuracy", "binary_accuracy", {"threshold"});
  return std::make_shared<BinaryAccuracy>(std::move(name), config.get_double("threshold", 0.5));
}

CategoricalAccuracy::CategoricalAccuracy(std::string name)
    : MeanMetricWrapper(categorical_accuracy, std::move(name)) {}

MetricPtr CategoricalAccuracy::from_config(const Config& config) {
  return std::make_shared<CategoricalAccuracy>(
      read_common_config(config, "CategoricalAccuracy", "categorical_accuracy"));
}

SparseCategoricalAccuracy::SparseCategoricalAccuracy(std::string name)
    : MeanMetricWrapper(sparse_categorical_accuracy, std::move(name)) {}

MetricPtr SparseCategoricalAccuracy::from_config(const Config& config) {
  return std::make_shared<SparseCategoricalAccuracy>(
      read_common_config(config, "SparseCategoricalAccuracy", "sparse_categorical_accuracy"));
}

TopKCategoricalAccuracy::TopKCategoricalAccuracy(int64_t k, std::string name)
    : MeanMetricWrapper(
          [k](const Tensor& y_true, const Tensor& y_pred) {
            return top_k_categorical_accuracy(y_true, y_pred, k);
          },
          std::move(name)),
      k_(checked_k(k, "TopKCategoricalAccuracy")) {}

Config TopKCategoricalAccuracy::get_config() const {
  return MeanMetricWrapper::get_config().set("k", k_);
}

MetricPtr TopKCategoricalAccuracy::from_config(const Config& config) {
  std::string name =
      read_common_config(config, "TopKCategoricalAccuracy", "top_k_categorical_accuracy", {"k"});
  return std::make_shared<TopKCategoricalAccuracy>(config.get_int("k", 5), std::move(name));
}

SparseTopKCategoricalAccuracy::SparseTopKCategoricalAccuracy(int64_t k, std::string name)
    : MeanMetricWrapper(
          [k](const Tensor& y_true, const Tensor& y_pred) {
            return sparse_top_k_categorical_accuracy(y_true, y_pred, k);
          },
          std::move(name)),
      k_(checked_k(k, "SparseTopKCategoricalAccuracy")) {}

Config SparseTopKCategoricalAccuracy::get_config() const {
  return MeanMetricWrapper::get_config().set("k", k_);
}

MetricPtr SparseTopKCategoricalAccuracy::from_config(const Config& config) {
  std::string name =
      read_common_config(config, "SparseTopKCategoricalAccuracy",
                         "sparse_top_k_categorical_accuracy", {"k", "from_sorted_ids"});
  KILN_CHECK(!config.get_bool("from_sorted_ids", false), config.where(),
             "SparseTopKCategoricalAccuracy: from_sorted_ids=true is not supported");
  return std::make_shared<SparseTopKCategoricalAccuracy>(config.get_int("k", 5), std::move(name));
}

}  // namespace kiln::metrics
