#pragma once
// Keras's Precision (tp / (tp + fp)) and Recall (tp / (tp + fn)) at one threshold, optionally of
// one class (class_id) or of each sample's top_k predictions.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/metrics/confusion_counts.h"
#include "kiln/training/metrics/metric.h"

namespace kiln::metrics {

// What Precision and Recall share: true positives, one other count, and their ratio. Keras also
// accepts a list of thresholds and returns one value per threshold; kiln's result() is a scalar,
// so a single threshold is supported.
class ThresholdRatioMetric : public Metric {
 public:
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  Tensor result() const override;
  Config get_config() const override;  // + thresholds, top_k, class_id

 protected:
  // other_count: "false_positives" (precision) or "false_negatives" (recall); class_name is for
  // messages (the virtual one is not usable in a constructor).
  ThresholdRatioMetric(std::string_view class_name, std::string name,
                       const std::string& other_count, std::optional<double> threshold,
                       std::optional<int64_t> top_k, std::optional<int64_t> class_id);
  // The constructor arguments besides the name, with Keras's keys (one of "thresholds").
  struct Arguments {
    std::optional<double> thresholds;
    std::optional<int64_t> top_k;
    std::optional<int64_t> class_id;
  };
  static const FieldTable<Arguments>& fields();

 private:
  std::optional<double> init_threshold_;  // as given, for the config (Keras's None = default)
  ConfusionOptions options_;
  ConfusionCounts counts_;  // true positives and the other count
  Variable other_;
};

class Precision : public ThresholdRatioMetric {
 public:
  // threshold: default 0.5, or with top_k every one of the top k counts as positive.
  explicit Precision(std::optional<double> threshold = std::nullopt,
                     std::optional<int64_t> top_k = std::nullopt,
                     std::optional<int64_t> class_id = std::nullopt,
                     std::string name = "precision");
  std::string class_name() const override { return "Precision"; }
  static MetricPtr from_config(const Config& config);
};

class Recall : public ThresholdRatioMetric {
 public:
  explicit Recall(std::optional<double> threshold = std::nullopt,
                  std::optional<int64_t> top_k = std::nullopt,
                  std::optional<int64_t> class_id = std::nullopt, std::string name = "recall");
  std::string class_name() const override { return "Recall"; }
  static MetricPtr from_config(const Config& config);
};

}  // namespace kiln::metrics
