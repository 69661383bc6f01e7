// Whole pipelines as a trainer builds them: components stay aligned through every stage.
#include <gmock/gmock.h>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

TEST(Pipeline, ComponentsOfAnElementStayTogether) {
  // x row i holds i in every cell, y is i, sample_weight is i + 0.5.
  const int64_t n = 50;
  Tensor x = Tensor::empty({n, 3});
  for (int64_t i = 0; i < n * 3; ++i) x.data<float>()[i] = static_cast<float>(i / 3);
  const Tensor w = arange(0.5, static_cast<double>(n), 1, DType::f64);
  const Dataset ds = Dataset::from_tensor_slices({x, arange(n), w})
                         .shuffle(16, 5)
                         .batch(8, /*drop_remainder=*/true)
                         .prefetch(2);
  EXPECT_EQ(ds.cardinality(), 6);
  int64_t batches = 0;
  for (const Element& b : ds) {
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].shape(), Shape({8, 3}));
    const std::vector<float> xs = b[0].to_vector<float>();
    const std::vector<int64_t> ys = b[1].to_vector<int64_t>();
    const std::vector<double> ws = b[2].to_vector<double>();
    for (size_t r = 0; r < 8; ++r) {
      EXPECT_EQ(xs[3 * r], static_cast<float>(ys[r]));
      EXPECT_EQ(xs[3 * r + 2], static_cast<float>(ys[r]));
      EXPECT_EQ(ws[r], static_cast<double>(ys[r]) + 0.5);
    }
    ++batches;
  }
  EXPECT_EQ(batches, 6);
}

TEST(Pipeline, PrefetchAndCacheComposeWithRepeat) {
  const Dataset ds = range_dataset(20).shuffle(20, 3).batch(6);
  EXPECT_EQ(values(ds.prefetch(2).repeat(3), 1), values(ds.repeat(3), 1));
  EXPECT_EQ(values(ds.repeat(3).prefetch(2), 1), values(ds.repeat(3), 1));
  const Dataset cached = ds.cache().repeat(2).prefetch(1);
  EXPECT_EQ(values(cached, 0), values(cached, 1));
}

}  // namespace
}  // namespace kiln::datasets::testing
