#include "kiln/training/metrics/precision_recall.h"

#include <memory>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {

ThresholdRatioMetric::ThresholdRatioMetric(std::string_view class_name, std::string name,
                                           const std::string& other_count,
                                           std::optional<double> threshold,
                                           std::optional<int64_t> top_k,
                                           std::optional<int64_t> class_id)
    : Metric(std::move(name)), init_threshold_(threshold) {
  KILN_CHECK(!threshold || (*threshold >= 0 && *threshold <= 1), class_name, " '", this->name(),
             "': thresholds must be in [0, 1], got ", threshold.value_or(0));
  KILN_CHECK(!top_k || *top_k >= 1, class_name, " '", this->name(),
             "': top_k must be at least 1, got ", top_k.value_or(0));
  KILN_CHECK(!class_id || *class_id >= 0, class_name, " '", this->name(),
             "': class_id must be >= 0, got ", class_id.value_or(0));
  // With top_k every kept prediction is positive and every dropped one (kNegInf) is not.
  options_.thresholds = {threshold.value_or(top_k ? kNegInf : 0.5)};
  options_.top_k = top_k;
  options_.class_id = class_id;
  counts_.true_positives = add_variable("true_positives", {1});
  other_ = add_variable(other_count, {1});
  (other_count == "false_positives" ? counts_.false_positives : counts_.false_negatives) = other_;
}

void ThresholdRatioMetric::update_state(const Tensor& y_true, const Tensor& y_pred,
                                        const Tensor& sample_weight) {
  with_error_context(y_true, y_pred, sample_weight, [&] {
    update_confusion_counts(counts_, y_true, y_pred, sample_weight, options_);
  });
}

Tensor ThresholdRatioMetric::result() const {
  const Tensor tp = counts_.true_positives.value();
  return ops::reshape(divide_no_nan(tp, tp + other_.value()), Shape{});
}

const FieldTable<ThresholdRatioMetric::Arguments>& ThresholdRatioMetric::fields() {
  // Keras also takes a list of thresholds, with one result per threshold; kiln's result() is a
  // scalar.
  const auto one_threshold = [](const Config& value, Arguments& into, std::string_view what) {
    const std::vector<double> values = value.as_double_list();
    KILN_CHECK(values.size() == 1, value.where(), what,
               ": one threshold is supported (result() is a scalar), got ", values.size());
    into.thresholds = values[0];
  };
  static const FieldTable<Arguments> table{
      {"thresholds", one_threshold,
       [](const Arguments& a) { return a.thresholds ? Config(*a.thresholds) : Config(); }},
      field("top_k", &Arguments::top_k),
      field("class_id", &Arguments::class_id)};
  return table;
}

Config ThresholdRatioMetric::get_config() const {
  return write_fields(Arguments{init_threshold_, options_.top_k, options_.class_id}, fields(),
                      Metric::get_config());
}

Precision::Precision(std::optional<double> threshold, std::optional<int64_t> top_k,
                     std::optional<int64_t> class_id, std::string name)
    : ThresholdRatioMetric("Precision", std::move(name), "false_positives", threshold, top_k,
                           class_id) {}

MetricPtr Precision::from_config(const Config& config) {
  auto [name, args] = read_metric_fields(config, fields(), "Precision", "precision");
  return std::make_shared<Precision>(args.thresholds, args.top_k, args.class_id, std::move(name));
}

Recall::Recall(std::optional<double> threshold, std::optional<int64_t> top_k,
               std::optional<int64_t> class_id, std::string name)
    : ThresholdRatioMetric("Recall", std::move(name), "false_negatives", threshold, top_k,
                           class_id) {}

MetricPtr Recall::from_config(const Config& config) {
  auto [name, args] = read_metric_fields(config, fields(), "Recall", "recall");
  return std::make_shared<Recall>(args.thresholds, args.top_k, args.class_id, std::move(name));
}

}  // namespace kiln::metrics
