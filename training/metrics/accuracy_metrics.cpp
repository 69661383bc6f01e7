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

struct ThresholdArguments {
  double threshold = 0.5;
};

const FieldTable<ThresholdArguments>& threshold_fields() {
  static const FieldTable<ThresholdArguments> table{
      field("threshold", &ThresholdArguments::threshold)};
  return table;
}

struct TopKArguments {
  int64_t k = 5;
};

const FieldTable<TopKArguments>& top_k_fields() {
  static const FieldTable<TopKArguments> table{field("k", &TopKArguments::k)};
  return table;
}

// Keras's from_sorted_ids=True (y_pred holding class ids) is refused; kiln does not write it.
const FieldTable<TopKArguments>& sparse_top_k_fields() {
  static const FieldTable<TopKArguments> table = [] {
    FieldTable<TopKArguments> t = top_k_fields();
    t.push_back(read_only(fixed_field<TopKArguments>(
        "from_sorted_ids", Config(false), "y_pred must hold scores, not sorted class ids")));
    return t;
  }();
  return table;
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
  return write_fields(ThresholdArguments{threshold_}, threshold_fields(),
                      MeanMetricWrapper::get_config());
}

MetricPtr BinaryAccuracy::from_config(const Config& config) {
  auto [name, args] =
      read_metric_fields(config, threshold_fields(), "BinaryAccuracy", "binary_accuracy");
  return std::make_shared<BinaryAccuracy>(std::move(name), args.threshold);
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
  return write_fields(TopKArguments{k_}, top_k_fields(), MeanMetricWrapper::get_config());
}

MetricPtr TopKCategoricalAccuracy::from_config(const Config& config) {
  auto [name, args] = read_metric_fields(config, top_k_fields(), "TopKCategoricalAccuracy",
                                         "top_k_categorical_accuracy");
  return std::make_shared<TopKCategoricalAccuracy>(args.k, std::move(name));
}

SparseTopKCategoricalAccuracy::SparseTopKCategoricalAccuracy(int64_t k, std::string name)
    : MeanMetricWrapper(
          [k](const Tensor& y_true, const Tensor& y_pred) {
            return sparse_top_k_categorical_accuracy(y_true, y_pred, k);
          },
          std::move(name)),
      k_(checked_k(k, "SparseTopKCategoricalAccuracy")) {}

Config SparseTopKCategoricalAccuracy::get_config() const {
  return write_fields(TopKArguments{k_}, sparse_top_k_fields(), MeanMetricWrapper::get_config());
}

MetricPtr SparseTopKCategoricalAccuracy::from_config(const Config& config) {
  auto [name, args] =
      read_metric_fields(config, sparse_top_k_fields(), "SparseTopKCategoricalAccuracy",
                         "sparse_top_k_categorical_accuracy");
  return std::make_shared<SparseTopKCategoricalAccuracy>(args.k, std::move(name));
}

}  // namespace kiln::metrics
