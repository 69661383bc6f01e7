#pragma once
// Token sequences padded to a width and the comparison the padding-invariance tests share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::testing {

// Token ids [1, width]: `ids` with zeros before them (pre) or after.
inline Tensor padded(const std::vector<int32_t>& ids, int64_t width, bool pre) {
  std::vector<int32_t> row(static_cast<size_t>(width), 0);
  const size_t start = pre ? row.size() - ids.size() : 0;
  std::copy(ids.begin(), ids.end(), row.begin() + static_cast<ptrdiff_t>(start));
  return from_vector(row, Shape({1, width}));
}

// Equal to 1e-5, relative to the wanted value's magnitude (at least 1).
inline void expect_near_all(const Tensor& got, const Tensor& want, const std::string& what) {
  const std::vector<float> g = got.to_vector<float>();
  const std::vector<float> w = want.to_vector<float>();
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i]))) << what << " at " << i;
}

}  // namespace kiln::testing
