#include "kiln/training/metrics/confusion_counts.h"

#include <tuple>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {
namespace {

// keras.metrics.metrics_utils._filter_top_k: every prediction outside its row's k highest
// becomes kNegInf. A prediction's rank is the number of higher ones plus the number of equal ones
// before it (tf.math.top_k keeps the lower index on ties); no sort op is needed.
Tensor filter_top_k(const Tensor& x, int64_t k) {
  const int64_t n = x.shape().dim(-1);
  KILN_CHECK(n >= 0, "top_k needs the class axis (last) of y_pred ", describe(x.meta()),
             " to be known");
  const Tensor index = arange(0, static_cast<double>(n), 1, DType::f32, x.device());
  const Tensor earlier = ops::less(ops::reshape(index, {1, n}), ops::reshape(index, {n, 1}));
  const Tensor mine = ops::expand_dims(x, -1);    // [..., n, 1]
  const Tensor others = ops::expand_dims(x, -2);  // [..., 1, n]
  const Tensor ahead = ops::logical_or(ops::greater(others, mine),
                                       ops::logical_and(ops::equal(others, mine), earlier));
  const Tensor rank = ops::sum(ops::cast(ahead, DType::f32), {-1});
  const Tensor kept = ops::cast(ops::less(rank, static_cast<double>(k)), x.dtype());
  return x * kept + (1.0 - kept) * kNegInf;
}

// The last axis of x narrowed to [id, id + 1).
Tensor class_slice(const Tensor& x, int64_t id) {
  std::vector<int64_t> begin(static_cast<size_t>(x.rank() - 1), 0);
  std::vector<int64_t> size(static_cast<size_t>(x.rank() - 1), -1);
  begin.push_back(id);
  size.push_back(1);
  return ops::slice(x, begin, size);
}

// [num_thresholds, N] or [num_thresholds, B, L]: whether each prediction counts as positive at
// each threshold.
Tensor positive_at_thresholds(const Tensor& pred, const ConfusionOptions& options) {
  const auto n = static_cast<int64_t>(options.thresholds.size());
  std::vector<int64_t> dims(static_cast<size_t>(pred.rank()) + 1, 1);
  dims[0] = n;
  const Tensor pred_row = ops::expand_dims(pred, 0);
  if (!options.evenly_spaced)
    return ops::greater(pred_row,
                        from_vector(options.thresholds, Shape(dims), DType::f32, pred.device()));
  // Keras buckets ceil(p * (n - 1)) - 1 and counts bucket >= j at threshold j, which for integer
  // j is p * (n - 1) > j; a first threshold below 0 lifts bucket -1 (p == 0) to 0.
  const Tensor scaled = ops::clip(pred_row, 0, 1) * static_cast<double>(n - 1);
  const Tensor bucket =
      ops::reshape(arange(0, static_cast<double>(n), 1, DType::f32, pred.device()), Shape(dims));
  Tensor positive = ops::greater(scaled, bucket);
  if (options.thresholds.front() < 0)
    positive = ops::logical_or(positive, ops::equal(bucket, ops::zeros_like(bucket)));
  return positive;
}

// Predictions, labels and weights (undefined = 1) of the same shape: [N], or [B, L] with
// multi_label.
struct CountInputs {
  Tensor pred;
  Tensor label;
  Tensor weight;
};

// Keras's preparation, in its order: rank alignment, sample weights aligned with the labels,
// top_k, class_id, weights broadcast to the predictions and times the label weights, flattening.
CountInputs prepare(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                    const ConfusionOptions& options) {
  CountInputs in;
  std::tie(in.pred, in.label) =
      squeeze_or_expand_to_same_rank(to_float32(y_pred), to_float32(y_true));
  if (sample_weight.defined())
    in.weight = squeeze_or_expand_to_same_rank(
                    in.label, ops::expand_dims(to_float32(sample_weight), -1), false)
                    .second;
  if (options.top_k) in.pred = filter_top_k(in.pred, *options.top_k);
  if (options.class_id) {
    KILN_CHECK(in.pred.rank() >= 2,
               "class_id needs y_pred of shape [num_samples, num_classes], got ",
               describe(in.pred.meta()));
    in.label = class_slice(in.label, *options.class_id);
    in.pred = class_slice(in.pred, *options.class_id);
  }
  if (in.weight.defined()) in.weight = ops::broadcast_like(in.weight, in.pred);
  if (!options.label_weights.empty()) {
    const auto classes = static_cast<int64_t>(options.label_weights.size());
    const Tensor per_class = ops::broadcast_like(
        from_vector(options.label_weights, {classes}, DType::f32, in.pred.device()), in.pred);
    in.weight = in.weight.defined() ? in.weight * per_class : per_class;
  }
  if (options.multi_label) {
    KILN_CHECK(in.pred.rank() == 2,
               "multi_label needs y_pred of shape [num_samples, num_labels], got ",
               describe(in.pred.meta()));
    return in;
  }
  in.pred = ops::reshape(in.pred, {-1});
  in.label = ops::reshape(in.label, {-1});
  if (in.weight.defined()) in.weight = ops::reshape(in.weight, {-1});
  return in;
}

}  // namespace

void update_confusion_counts(const ConfusionCounts& counts, const Tensor& y_true,
                             const Tensor& y_pred, const Tensor& sample_weight,
                             const ConfusionOptions& options) {
  KILN_CHECK(!options.thresholds.empty(), "confusion counts need at least one threshold");
  const CountInputs in = prepare(y_true, y_pred, sample_weight, options);
  // Labels are positive where nonzero; each sample adds its weight to one count per threshold.
  const Tensor is_positive =
      ops::cast(ops::not_equal(in.label, ops::zeros_like(in.label)), DType::f32);
  Tensor positives = is_positive;
  Tensor negatives = 1.0 - is_positive;
  if (in.weight.defined()) {
    positives = positives * in.weight;
    negatives = negatives * in.weight;
  }
  const Tensor above = positive_at_thresholds(in.pred, options);
  const Tensor zero = scalar(0, DType::f32, above.device());
  // Sums over the samples (axis 1 of [thresholds, samples, ...]).
  const auto count = [&](const Tensor& where_true, const Tensor& where_false) {
    return ops::sum(ops::where(above, where_true, where_false), {1});
  };
  const Tensor tp = count(positives, zero);
  const Tensor fp = count(negatives, zero);
  if (counts.true_positives.defined()) counts.true_positives.assign_add(tp);
  if (counts.false_positives.defined()) counts.false_positives.assign_add(fp);
  // Keras's bucketed path takes the negatives as totals minus positives, the other counts them.
  if (counts.true_negatives.defined())
    counts.true_negatives.assign_add(options.evenly_spaced ? ops::sum(negatives, {0}) - fp
                                                           : count(zero, negatives));
  if (counts.false_negatives.defined())
    counts.false_negatives.assign_add(options.evenly_spaced ? ops::sum(positives, {0}) - tp
                                                            : count(zero, positives));
}

}  // namespace kiln::metrics
