#pragma once
// Weighted confusion-matrix counts at a list of thresholds, accumulated into state variables:
// keras.metrics.metrics_utils.update_confusion_matrix_variables, shared by Precision, Recall and
// AUC.
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::metrics {

// Keras's stand-in for minus infinity (metrics_utils.NEG_INF): what top_k filtering gives the
// predictions it drops, and Precision's and Recall's default threshold with top_k.
inline constexpr double kNegInf = -1e10;

// The counts to accumulate; undefined ones are skipped. Each is [num_thresholds], or
// [num_thresholds, num_labels] with multi_label.
struct ConfusionCounts {
  Variable true_positives;
  Variable false_positives;
  Variable true_negatives;
  Variable false_negatives;
};

struct ConfusionOptions {
  // A prediction is positive at a threshold it is strictly above.
  std::vector<double> thresholds;
  // Keras's bucketed path for evenly spaced thresholds (AUC): predictions are clipped to [0, 1]
  // first, which changes the counts of predictions outside that range.
  bool evenly_spaced = false;
  // Only each sample's k highest predictions may be positive (ties: the lower index wins).
  std::optional<int64_t> top_k;
  // Count one class (an index into the last axis) only.
  std::optional<int64_t> class_id;
  // One weight per class (the last axis), multiplying the sample weights.
  std::vector<double> label_weights;
  // Keep the label axis of [B, L] predictions: counts per label.
  bool multi_label = false;
};

// Labels are positive where nonzero. sample_weight (undefined = 1) broadcasts against y_pred
// after Keras's rank alignment ([B] weights apply to every class of a sample).
void update_confusion_counts(const ConfusionCounts& counts, const Tensor& y_true,
                             const Tensor& y_pred, const Tensor& sample_weight,
                             const ConfusionOptions& options);

}  // namespace kiln::metrics
