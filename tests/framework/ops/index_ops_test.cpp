// gather, scatter_add, take_along_axis and one_hot.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

using V = std::vector<float>;

Tensor indices(std::vector<int64_t> v, Shape s) {
  return from_vector(v, s);
}

TEST(IndexOps, GatherAlongAxes) {
  const Tensor p = tensor({0, 1, 2, 3, 4, 5}, {3, 2});
  EXPECT_EQ(ops::gather(p, indices({2, 0, 2}, {3})).to_vector<float>(), (V{4, 5, 0, 1, 4, 5}));
  EXPECT_EQ(ops::gather(p, indices({1}, {1}), 1).to_vector<float>(), (V{1, 3, 5}));
  EXPECT_EQ(ops::gather(p, indices({0, 1, 2, 0}, {2, 2})).shape(), (Shape{2, 2, 2}));
}

TEST(IndexOps, GatherRejectsOutOfRangeIndices) {
  const Tensor p = zeros({3, 2});
  try {
    (void)ops::gather(p, indices({3}, {1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gather: index 3 is out of range [0, 3)"),
              std::string::npos)
        << e.what();
  }
}

TEST(IndexOps, ScatterAddAccumulatesRepeats) {
  const Tensor base = zeros({3});
  const Tensor out = ops::scatter_add(base, indices({0, 2, 0}, {3}), tensor({1, 2, 3}));
  EXPECT_EQ(out.to_vector<float>(), (V{4, 0, 2}));
}

// Large enough that threads split the columns into blocks (the last one partial), with repeated
// indices and several outer slices: every element adds up its updates in index order.
TEST(IndexOps, ScatterAddOverColumnBlocksMatchesALoop) {
  constexpr int64_t outer = 3, rows = 5, n = 700, inner = 200;
  std::vector<int64_t> idx(n);
  for (int64_t j = 0; j < n; ++j) idx[static_cast<size_t>(j)] = (j * 7) % rows;
  std::vector<float> base(outer * rows * inner), updates(outer * n * inner);
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<float>(i % 13) * 0.25F;
  for (size_t i = 0; i < updates.size(); ++i) updates[i] = static_cast<float>(i % 17) * 0.125F;
  std::vector<float> want = base;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < inner; ++c)
        want[static_cast<size_t>((o * rows + idx[static_cast<size_t>(j)]) * inner + c)] +=
            updates[static_cast<size_t>((o * n + j) * inner + c)];
  const Tensor out = ops::scatter_add(from_vector(base, {outer, rows, inner}), indices(idx, {n}),
                                      from_vector(updates, {outer, n, inner}), 1);
  EXPECT_EQ(out.to_vector<float>(), want);
}

TEST(IndexOps, TakeAlongAxisAndOneHot) {
  const Tensor x = tensor({10, 11, 12, 20, 21, 22}, {2, 3});
  EXPECT_EQ(ops::take_along_axis(x, indices({2, 0}, {2, 1}), 1).to_vector<float>(), (V{12, 20}));
  EXPECT_EQ(ops::take_along_axis(x, indices({1, 0, 1}, {1, 3}), 0).to_vector<float>(),
            (V{20, 11, 22}));
  EXPECT_EQ(ops::one_hot(indices({2, 0, 5}, {3}), 3).to_vector<float>(),
            (V{0, 0, 1, 1, 0, 0, 0, 0, 0}));
}

TEST(IndexOps, Gradients) {
  const Tensor p = testing::random_f64({4, 3});
  const Tensor idx = indices({3, 1, 3}, {3});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) { return ops::gather(in[0], idx, 0); }, {p});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return ops::gather(in[0], indices({2, 2}, {2}), 1);
      },
      {p});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) { return ops::scatter_add(in[0], idx, in[1], 0); },
      {p, testing::random_f64({3, 3})});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return ops::take_along_axis(in[0], indices({0, 2, 1, 1}, {4, 1}), 1);
      },
      {p});
}

}  // namespace
}  // namespace kiln
