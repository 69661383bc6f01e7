// How a global batch splits into replica shards and how gradients pack into buckets.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/training/distribute/batch_shard.h"
#include "kiln/training/distribute/gradient_buckets.h"

namespace kiln::distribute {
namespace {

TEST(BatchShard, TheShardsCoverTheBatchWithoutOverlap) {
  for (const int64_t rows : {0, 1, 3, 96, 128, 129}) {
    for (const int replicas : {1, 2, 3, 8}) {
      int64_t next = 0;
      for (int r = 0; r < replicas; ++r) {
        const auto [begin, end] = shard_rows(rows, r, replicas);
        EXPECT_EQ(begin, next) << rows << " rows, replica " << r << " of " << replicas;
        EXPECT_LE(end - begin, rows / replicas + 1);
        EXPECT_GE(end - begin, rows / replicas);
        next = end;
      }
      EXPECT_EQ(next, rows);
    }
  }
}

TEST(BatchShard, EachTensorGivesTheReplicasRows) {
  const Tensor x = from_vector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {5, 2});
  const Tensor y = from_vector<int32_t>({10, 11, 12, 13, 14}, {5});
  const std::vector<Tensor> second = shard_of({x, y}, 1, 2);
  EXPECT_EQ(second[0].shape(), Shape({2, 2}));
  EXPECT_EQ(second[0].to_vector<float>(), (std::vector<float>{6, 7, 8, 9}));
  EXPECT_EQ(second[1].to_vector<int32_t>(), (std::vector<int32_t>{13, 14}));
  EXPECT_EQ(shard_of({y}, 0, 2)[0].to_vector<int32_t>(), (std::vector<int32_t>{10, 11, 12}));
}

TEST(GradientBuckets, BackpropOrderFillsBucketsUpToTheirSize) {
  // 400, 40, 400 and 4 bytes of float32 gradients; the last variable's comes first.
  const std::vector<Tensor> grads{zeros({100}), zeros({10}), Tensor(), zeros({100}), zeros({1})};
  EXPECT_EQ(plan_buckets(grads, 1 << 20), (std::vector<std::vector<size_t>>{{4, 3, 1, 0}}));
  EXPECT_EQ(plan_buckets(grads, 404), (std::vector<std::vector<size_t>>{{4, 3}, {1}, {0}}));
  // A gradient larger than the bucket size gets a bucket of its own.
  EXPECT_EQ(plan_buckets(grads, 8), (std::vector<std::vector<size_t>>{{4}, {3}, {1}, {0}}));
}

TEST(GradientBuckets, ADtypeChangeStartsABucket) {
  const std::vector<Tensor> grads{zeros({2}, DType::f64), zeros({2}), zeros({2})};
  EXPECT_EQ(plan_buckets(grads, 1 << 20), (std::vector<std::vector<size_t>>{{2, 1}, {0}}));
}

TEST(GradientBuckets, OneRankGetsItsGradientsBackInTheirShapesAndDtypes) {
  const std::vector<Tensor> grads{from_vector<float>({1, 2, 3, 4}, {2, 2}), Tensor(),
                                  ops::cast(from_vector<float>({5}, {1}), DType::bf16)};
  const std::vector<Tensor> summed = all_reduce_gradients(grads, 8, scalar(1, DType::boolean));
  ASSERT_EQ(summed.size(), 3u);
  EXPECT_EQ(summed[0].shape(), Shape({2, 2}));
  EXPECT_EQ(summed[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(summed[1].defined());
  EXPECT_EQ(summed[2].dtype(), DType::bf16);
}

}  // namespace
}  // namespace kiln::distribute
