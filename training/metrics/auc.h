#pragma once
// Keras's AUC: the area under the ROC or precision-recall curve, from confusion counts at a fixed
// set of thresholds (a Riemann sum, or for PR the Davis & Goadrich interpolation).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/metrics/confusion_counts.h"
#include "kiln/training/metrics/metric.h"

namespace kiln::metrics {

enum class AUCCurve { ROC, PR, PRGAIN };
enum class AUCSummationMethod { interpolation, majoring, minoring };

// "ROC", "PR", "PRGAIN" in any case; anything else is an error with suggestions.
AUCCurve parse_auc_curve(std::string_view name);
std::string_view auc_curve_name(AUCCurve curve);  // "ROC", "PR", "PRGAIN"
// "interpolation", "majoring", "minoring" in any case.
AUCSummationMethod parse_auc_summation_method(std::string_view name);
std::string_view auc_summation_method_name(AUCSummationMethod method);

struct AUCOptions {
  int64_t num_thresholds = 200;  // evenly spaced over [0, 1]
  AUCCurve curve = AUCCurve::ROC;
  AUCSummationMethod summation_method = AUCSummationMethod::interpolation;
  // Explicit thresholds (sorted here); when given they replace num_thresholds, and 0 - epsilon
  // and 1 + epsilon are added at the ends, as Keras does.
  std::vector<double> thresholds;
  // Counts per label of [B, L] predictions, averaged (or weighted by label_weights) at the end.
  // kiln needs num_labels up front: the state must exist before a traced step captures it.
  bool multi_label = false;
  std::optional<int64_t> num_labels;
  std::vector<double> label_weights;  // per label (multi_label) or per class
  bool from_logits = false;           // apply a sigmoid to y_pred first
};

class AUC : public Metric {
 public:
  explicit AUC(AUCOptions options = {}, std::string name = "auc");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = {}) override;
  Tensor result() const override;
  std::string class_name() const override { return "AUC"; }
  Config get_config() const override;
  static MetricPtr from_config(const Config& config);

  // Every threshold, with the ends outside [0, 1] (what the counts are taken at).
  const std::vector<double>& thresholds() const { return confusion_.thresholds; }

 private:
  static const FieldTable<AUCOptions>& fields();
  // The area from per-threshold curve points (x falls as the threshold rises).
  Tensor riemann_sum(const Tensor& x, const Tensor& y) const;
  // PR with interpolation: Davis & Goadrich 2006, the area between thresholds under precision
  // interpolated along true positives.
  Tensor interpolated_pr_auc() const;
  // Sums the per-threshold-step areas; with multi_label, then averages over labels.
  Tensor total_area(const Tensor& increments) const;

  AUCOptions options_;
  ConfusionOptions confusion_;
  ConfusionCounts counts_;
};

}  // namespace kiln::metrics
