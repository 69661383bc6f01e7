#include "kiln/training/tensorboard/histogram.h"

#include <algorithm>
#include <cmath>

namespace kiln::tensorboard {

Histogram histogram(const Tensor& values, int buckets) {
  std::vector<double> v = values.to(Device::cpu()).to_vector<double>();
  std::erase_if(v, [](double x) { return !std::isfinite(x); });
  Histogram h;
  if (v.empty()) return h;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  h.min = *lo;
  h.max = *hi;
  h.num = static_cast<double>(v.size());
  for (const double x : v) {
    h.sum += x;
    h.sum_squares += x * x;
  }
  const int n = h.max > h.min ? buckets : 1;
  const double width = (h.max - h.min) / n;
  h.bucket.assign(static_cast<size_t>(n), 0.0);
  for (int i = 0; i < n; ++i)
    h.bucket_limit.push_back(i + 1 == n ? h.max : h.min + width * (i + 1));
  for (const double x : v) {
    const auto i = n == 1 ? 0 : std::min(n - 1, static_cast<int>((x - h.min) / width));
    h.bucket[static_cast<size_t>(i)] += 1;
  }
  return h;
}

}  // namespace kiln::tensorboard
