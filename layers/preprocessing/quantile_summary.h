#pragma once
// Keras's approximate quantiles for Discretization.adapt, step for step and in its precisions (a
// float32 summary, float64 interpolation) so that the boundaries agree with Keras's:
// - each batch's sorted values are summarized by every step-th one (step = max(n * epsilon, 1))
//   weighted by step;
// - the summary merges with the batch's by value and is compressed to 1 / epsilon points by
//   interpolating the cumulative weights (np.interp), once it holds that many;
// - the boundaries are the summary compressed to num_bins points, all but the last (the values
//   themselves, but the last, when there are fewer than num_bins).
#include <cstdint>
#include <vector>

namespace kiln::layers {

class QuantileSummary {
 public:
  explicit QuantileSummary(double epsilon) : epsilon_(epsilon) {}

  void add(std::vector<float> values);
  std::vector<double> boundaries(int64_t num_bins) const;
  bool empty() const { return values_.empty(); }

 private:
  double epsilon_;
  // Sorted by value, with each point's weight.
  std::vector<float> values_;
  std::vector<float> weights_;
};

}  // namespace kiln::layers
