// ops::random_uniform_like: a pure function of (shape, seed), in [0, 1), uniform, and usable on
// symbolic tensors with unknown dims.
#include <gtest/gtest.h>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

Tensor seed(int64_t key, int64_t counter) {
  return from_vector<int64_t>({key, counter}, {2});
}

TEST(StatelessUniform, SameSeedSameValuesOtherSeedOtherValues) {
  const Tensor like = zeros({64, 33});
  const auto a = ops::random_uniform_like(like, seed(1, 0)).to_vector<float>();
  const auto b = ops::random_uniform_like(like, seed(1, 0)).to_vector<float>();
  const auto c = ops::random_uniform_like(like, seed(1, 1)).to_vector<float>();
  const auto d = ops::random_uniform_like(like, seed(2, 0)).to_vector<float>();
  EXPECT_EQ(a, b);
  int same_c = 0;
  int same_d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    same_c += a[i] == c[i];
    same_d += a[i] == d[i];
  }
  EXPECT_LT(same_c, 3);
  EXPECT_LT(same_d, 3);
}

TEST(StatelessUniform, ValuesAreUniformInUnitInterval) {
  const auto v = ops::random_uniform_like(zeros({100000}), seed(5, 9)).to_vector<float>();
  double sum = 0;
  int below_quarter = 0;
  for (const float x : v) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    sum += x;
    below_quarter += x < 0.25f;
  }
  EXPECT_NEAR(sum / static_cast<double>(v.size()), 0.5, 0.01);
  EXPECT_NEAR(below_quarter / static_cast<double>(v.size()), 0.25, 0.01);
}

TEST(StatelessUniform, PrefixOfALargerDrawIsTheSmallerDraw) {
  // Element i depends only on i and the seed, so shapes do not reshuffle values.
  const auto small = ops::random_uniform_like(zeros({10}), seed(3, 4)).to_vector<float>();
  const auto large = ops::random_uniform_like(zeros({20}), seed(3, 4)).to_vector<float>();
  for (size_t i = 0; i < small.size(); ++i) EXPECT_EQ(small[i], large[i]);
}

TEST(StatelessUniform, SymbolicLikeKeepsUnknownDimsAndChecksTheSeed) {
  const Tensor like = Tensor::symbolic({DType::f32, Shape({-1, 8}), Device::cpu()});
  const Tensor r = ops::random_uniform_like(like, seed(0, 0), DType::f64);
  EXPECT_EQ(r.shape(), Shape({-1, 8}));
  EXPECT_EQ(r.dtype(), DType::f64);
  EXPECT_THROW(ops::random_uniform_like(like, from_vector<int64_t>({1}, {1})), ShapeError);
}

}  // namespace
}  // namespace kiln
