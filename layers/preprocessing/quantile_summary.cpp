#include "kiln/layers/preprocessing/quantile_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::layers {
namespace {

struct Summary {
  std::vector<float> values;
  std::vector<float> weights;
};

// np.interp(x, xp, fp) for increasing xp (repeats allowed): fp at the last xp <= x, or the line
// to the next point, with its arithmetic; fp's ends outside.
double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp) {
  const auto upper = std::upper_bound(xp.begin(), xp.end(), x);
  if (upper == xp.begin()) return fp.front();
  const auto j = static_cast<size_t>(upper - xp.begin()) - 1;
  if (j == xp.size() - 1 || xp[j] == x) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  return slope * (x - xp[j]) + fp[j];
}

// Keras's compress_summary: the summary at 1 / epsilon evenly spaced cumulative weights, once it
// has that many points.
Summary compress(Summary s, double epsilon) {
  if (static_cast<double>(s.values.size()) * epsilon < 1) return s;
  // np.arange(0.0, 1.0, epsilon) + epsilon.
  const auto count = static_cast<size_t>(std::ceil(1.0 / epsilon));
  // np.cumsum of float32 weights: a float32 running sum.
  std::vector<float> cumulative;
  float running = 0.0f;
  for (const float w : s.weights) cumulative.push_back(running += w);
  std::vector<double> percents(cumulative.size());
  std::vector<double> values(s.values.begin(), s.values.end());
  std::vector<double> cum_weights(cumulative.begin(), cumulative.end());
  for (size_t i = 0; i < cumulative.size(); ++i)
    percents[i] = static_cast<double>(cumulative[i] / cumulative.back());
  Summary out;
  double previous = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double p = epsilon + static_cast<double>(i) * epsilon;
    const double weight = interp(p, percents, cum_weights);
    out.values.push_back(static_cast<float>(interp(p, percents, values)));
    out.weights.push_back(static_cast<float>(weight - previous));
    previous = weight;
  }
  return out;
}

}  // namespace

void QuantileSummary::add(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  // Keras's summarize: every step-th value from the step-th on, weighing step.
  const auto n = static_cast<double>(values.size());
  const double step = std::max(n / (1.0 / epsilon_), 1.0);
  const auto stride = static_cast<size_t>(step);
  Summary merged;
  for (auto i = static_cast<size_t>(step - 1); i < values.size(); i += stride) {
    merged.values.push_back(values[i]);
    merged.weights.push_back(static_cast<float>(step));
  }
  // Merged by value, the batch's points before the summary's among equals.
  merged.values.insert(merged.values.end(), values_.begin(), values_.end());
  merged.weights.insert(merged.weights.end(), weights_.begin(), weights_.end());
  std::vector<size_t> order(merged.values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return merged.values[a] < merged.values[b]; });
  Summary sorted;
  for (const size_t i : order) {
    sorted.values.push_back(merged.values[i]);
    sorted.weights.push_back(merged.weights[i]);
  }
  Summary compressed = compress(std::move(sorted), epsilon_);
  values_ = std::move(compressed.values);
  weights_ = std::move(compressed.weights);
}

std::vector<double> QuantileSummary::boundaries(int64_t num_bins) const {
  const Summary bins = compress({values_, weights_}, 1.0 / static_cast<double>(num_bins));
  if (bins.values.empty()) return {};
  return {bins.values.begin(), bins.values.end() - 1};
}

}  // namespace kiln::layers
