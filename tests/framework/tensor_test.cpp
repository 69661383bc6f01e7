#include <gtest/gtest.h>

#include "framework/ops/ops.h"

namespace kiln {
namespace {

TEST(Tensor, CreatesAndReadsBack) {
  const Tensor t = tensor({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace kiln
