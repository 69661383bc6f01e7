// Merge layers on inputs of different ranks: the lower-rank input gains axes after the batch
// axis, as in Keras ([B, C] with [B, T, C] merges as [B, 1, C]), even when B equals T.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/merge/merge.h"

namespace kiln::layers {
namespace {

TEST(MergeRanks, ALowerRankInputBroadcastsOverTheMiddleAxes) {
  const Tensor x = random::uniform({3, 3, 2});
  const Tensor y = random::uniform({3, 2});
  const Tensor want = x + ops::expand_dims(y, 1);
  Add add;
  EXPECT_EQ(add({x, y}, CallContext{})[0].to_vector<float>(), want.to_vector<float>());
  Add reversed;
  EXPECT_EQ(reversed({y, x}, CallContext{})[0].to_vector<float>(),
            (ops::expand_dims(y, 1) + x).to_vector<float>());
}

}  // namespace
}  // namespace kiln::layers
