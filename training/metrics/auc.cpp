#include "kiln/training/metrics/auc.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <memory>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/metrics/metric_config.h"
#include "kiln/training/metrics/tensor_utils.h"

namespace kiln::metrics {
namespace {

// keras.backend.epsilon(): how far the end thresholds lie outside [0, 1], so predictions of
// exactly 0 and 1 fall inside the curve.
constexpr double kEpsilon = 1e-7;

// metrics_utils.is_evenly_distributed_thresholds: np.allclose against arange(n) / (n - 1) in
// float32, with atol = epsilon (and NumPy's default rtol).
bool evenly_distributed(const std::vector<double>& thresholds) {
  const size_t n = thresholds.size();
  if (n < 3) return false;
  for (size_t i = 0; i < n; ++i) {
    const double even = static_cast<float>(i) / static_cast<float>(n - 1);
    if (std::abs(thresholds[i] - even) > kEpsilon + 1e-5 * std::abs(even)) return false;
  }
  return true;
}

// The spellings Keras writes; parsing also accepts other cases ("roc", "Majoring"), as Keras does
// for the common ones.
constexpr std::array<std::pair<std::string_view, AUCCurve>, 3> kCurves{
    {{"ROC", AUCCurve::ROC}, {"PR", AUCCurve::PR}, {"PRGAIN", AUCCurve::PRGAIN}}};
constexpr std::array<std::pair<std::string_view, AUCSummationMethod>, 3> kSummationMethods{
    {{"interpolation", AUCSummationMethod::interpolation},
     {"majoring", AUCSummationMethod::majoring},
     {"minoring", AUCSummationMethod::minoring}}};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

template <typename Enum, size_t N>
Enum parse_choice(std::string_view name,
                  const std::array<std::pair<std::string_view, Enum>, N>& choices,
                  std::string_view what) {
  std::vector<std::string> names;
  for (const auto& [choice, value] : choices) {
    if (equal_ignoring_case(name, choice)) return value;
    names.emplace_back(choice);
  }
  const std::string hint = did_you_mean(name, names);
  throw Error(
      detail::concat("AUC: unknown ", what, " '", name, "'", hint.empty() ? "" : "; " + hint));
}

template <typename Enum, size_t N>
std::string_view choice_name(Enum value,
                             const std::array<std::pair<std::string_view, Enum>, N>& choices) {
  for (const auto& [choice, v] : choices)
    if (v == value) return choice;
  return "?";
}

// Rows [0, n - 1) and [1, n) of a per-threshold tensor: the two ends of each threshold step.
Tensor lower_ends(const Tensor& x) {
  std::vector<int64_t> size = {x.shape()[0] - 1};
  size.resize(static_cast<size_t>(x.rank()), -1);
  return ops::slice(x, std::vector<int64_t>(size.size(), 0), size);
}
Tensor upper_ends(const Tensor& x) {
  std::vector<int64_t> begin = {1};
  begin.resize(static_cast<size_t>(x.rank()), 0);
  return ops::slice(x, begin, std::vector<int64_t>(begin.size(), -1));
}

// A list, or a tensor as Keras's get_config leaves it ({"class_name": "__tensor__", "config":
// {"value": [...], "dtype": ...}}).
std::vector<double> read_label_weights(const Config& config) {
  return config.is_map() ? config["config"]["value"].as_double_list() : config.as_double_list();
}

}  // namespace

AUCCurve parse_auc_curve(std::string_view name) {
  return parse_choice(name, kCurves, "curve");
}

std::string_view auc_curve_name(AUCCurve curve) {
  return choice_name(curve, kCurves);
}

AUCSummationMethod parse_auc_summation_method(std::string_view name) {
  return parse_choice(name, kSummationMethods, "summation_method");
}

std::string_view auc_summation_method_name(AUCSummationMethod method) {
  return choice_name(method, kSummationMethods);
}

AUC::AUC(AUCOptions options, std::string name)
    : Metric(std::move(name)), options_(std::move(options)) {
  std::vector<double> interior = options_.thresholds;
  if (!interior.empty()) {
    std::sort(interior.begin(), interior.end());
    options_.thresholds = interior;
    options_.num_thresholds = static_cast<int64_t>(interior.size()) + 2;
    std::vector<double> with_ends = {0.0};
    with_ends.insert(with_ends.end(), interior.begin(), interior.end());
    with_ends.push_back(1.0);
    confusion_.evenly_spaced = evenly_distributed(with_ends);
  } else {
    const int64_t n = options_.num_thresholds;
    KILN_CHECK(n > 1, "AUC '", this->name(), "': num_thresholds must be an integer > 1, got ", n);
    for (int64_t i = 0; i < n - 2; ++i)
      interior.push_back(static_cast<double>(i + 1) / static_cast<double>(n - 1));
    confusion_.evenly_spaced = true;
  }
  confusion_.thresholds = {0.0 - kEpsilon};
  confusion_.thresholds.insert(confusion_.thresholds.end(), interior.begin(), interior.end());
  confusion_.thresholds.push_back(1.0 + kEpsilon);

  Shape shape{options_.num_thresholds};
  if (options_.multi_label) {
    KILN_CHECK(options_.num_labels && *options_.num_labels > 0, "AUC '", this->name(),
               "': multi_label=true needs num_labels (kiln creates the state before the first "
               "update, so that traced steps capture it)");
    shape = Shape{options_.num_thresholds, *options_.num_labels};
    KILN_CHECK(options_.label_weights.empty() ||
                   static_cast<int64_t>(options_.label_weights.size()) == *options_.num_labels,
               "AUC '", this->name(), "': ", options_.label_weights.size(),
               " label_weights for num_labels=", *options_.num_labels);
  } else {
    KILN_CHECK(!options_.num_labels, "AUC '", this->name(),
               "': num_labels is needed only when multi_label is true");
    confusion_.label_weights = options_.label_weights;
  }
  confusion_.multi_label = options_.multi_label;
  counts_.true_positives = add_variable("true_positives", shape);
  counts_.false_positives = add_variable("false_positives", shape);
  counts_.true_negatives = add_variable("true_negatives", shape);
  counts_.false_negatives = add_variable("false_negatives", shape);
}

void AUC::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  with_error_context(y_true, y_pred, sample_weight, [&] {
    const Tensor pred = options_.from_logits ? ops::sigmoid(to_float32(y_pred)) : y_pred;
    update_confusion_counts(counts_, y_true, pred, sample_weight, confusion_);
  });
}

Tensor AUC::total_area(const Tensor& increments) const {
  if (!options_.multi_label) return ops::sum(increments);
  const Tensor by_label = ops::sum(increments, {0});
  if (options_.label_weights.empty()) return ops::mean(by_label);
  const Tensor weights =
      from_vector(options_.label_weights, {static_cast<int64_t>(options_.label_weights.size())},
                  DType::f32, increments.device());
  return divide_no_nan(ops::sum(by_label * weights), ops::sum(weights));
}

Tensor AUC::interpolated_pr_auc() const {
  const Tensor tp = counts_.true_positives.value();
  const Tensor p = tp + counts_.false_positives.value();
  const Tensor dtp = lower_ends(tp) - upper_ends(tp);
  const Tensor dp = lower_ends(p) - upper_ends(p);
  const Tensor slope = divide_no_nan(dtp, ops::maximum(dp, 0));
  const Tensor intercept = upper_ends(tp) - slope * upper_ends(p);
  const Tensor p_lo = lower_ends(p), p_hi = upper_ends(p);
  const Tensor safe_p_ratio =
      ops::where(ops::logical_and(ops::greater(p_lo, 0), ops::greater(p_hi, 0)),
                 divide_no_nan(p_lo, ops::maximum(p_hi, 0)), ops::ones_like(p_hi));
  const Tensor increments =
      divide_no_nan(slope * (dtp + intercept * ops::log(safe_p_ratio)),
                    ops::maximum(upper_ends(tp) + upper_ends(counts_.false_negatives.value()), 0));
  return total_area(increments);
}

Tensor AUC::riemann_sum(const Tensor& x, const Tensor& y) const {
  Tensor heights;
  switch (options_.summation_method) {
    case AUCSummationMethod::interpolation:
      heights = (lower_ends(y) + upper_ends(y)) / 2.0;
      break;
    case AUCSummationMethod::minoring:
      heights = ops::minimum(lower_ends(y), upper_ends(y));
      break;
    case AUCSummationMethod::majoring:
      heights = ops::maximum(lower_ends(y), upper_ends(y));
      break;
  }
  return total_area((lower_ends(x) - upper_ends(x)) * heights);
}

Tensor AUC::result() const {
  if (options_.curve == AUCCurve::PR &&
      options_.summation_method == AUCSummationMethod::interpolation)
    return interpolated_pr_auc();
  const Tensor tp = counts_.true_positives.value();
  const Tensor fp = counts_.false_positives.value();
  const Tensor tn = counts_.true_negatives.value();
  const Tensor fn = counts_.false_negatives.value();
  const Tensor recall = divide_no_nan(tp, tp + fn);
  switch (options_.curve) {
    case AUCCurve::ROC:
      return riemann_sum(divide_no_nan(fp, fp + tn), recall);
    case AUCCurve::PR:
      return riemann_sum(recall, divide_no_nan(tp, tp + fp));
    case AUCCurve::PRGAIN: {
      // Flach & Kull 2015: gains relative to the always-positive classifier.
      const Tensor scale = divide_no_nan(tp + fn, tn + fp);
      const Tensor no_tp = ops::equal(tp, ops::zeros_like(tp));
      const Tensor recall_gain = ops::maximum(ops::where(no_tp, scalar(0, DType::f32, tp.device()),
                                                         1.0 - scale * divide_no_nan(fn, tp)),
                                              0);
      const Tensor precision_gain = ops::where(no_tp, scalar(1, DType::f32, tp.device()),
                                               1.0 - scale * divide_no_nan(fp, tp));
      return riemann_sum(recall_gain, precision_gain);
    }
  }
  return {};
}

const FieldTable<AUCOptions>& AUC::fields() {
  using O = AUCOptions;
  static const FieldTable<O> table{
      field("num_thresholds", &O::num_thresholds),
      field(
          "curve", &O::curve, [](const Config& c) { return parse_auc_curve(c.as_string()); },
          [](AUCCurve curve) { return Config(std::string(auc_curve_name(curve))); }),
      field(
          "summation_method", &O::summation_method,
          [](const Config& c) { return parse_auc_summation_method(c.as_string()); },
          [](AUCSummationMethod method) {
            return Config(std::string(auc_summation_method_name(method)));
          }),
      field("multi_label", &O::multi_label), field("num_labels", &O::num_labels),
      field("label_weights", &O::label_weights, read_label_weights,
            [](const std::vector<double>& w) { return w.empty() ? Config() : Config(w); }),
      field("from_logits", &O::from_logits),
      // Keras writes thresholds only when they were given (not num_thresholds' even spacing).
      written_if(field("thresholds", &O::thresholds),
                 [](const O& o) { return !o.thresholds.empty(); })};
  return table;
}

Config AUC::get_config() const {
  return write_fields(options_, fields(), Metric::get_config());
}

MetricPtr AUC::from_config(const Config& config) {
  auto [name, options] = read_metric_fields(config, fields(), "AUC", "auc");
  return std::make_shared<AUC>(std::move(options), std::move(name));
}

}  // namespace kiln::metrics
