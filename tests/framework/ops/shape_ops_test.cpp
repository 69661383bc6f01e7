// reshape, transpose, broadcast_to, slices, concat/stack/split and pad: values and gradients.
#include <gtest/gtest.h>

#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

using V = std::vector<float>;
const Tensor kM = arange(0, 6, 1, DType::f32);

TEST(ShapeOps, ReshapeInfersOneDim) {
  EXPECT_EQ(ops::reshape(kM, {-1, 3}).shape(), (Shape{2, 3}));
  EXPECT_EQ(ops::flatten(ops::reshape(kM, {1, 2, 3})).shape(), (Shape{1, 6}));
  EXPECT_EQ(ops::expand_dims(kM, 0).shape(), (Shape{1, 6}));
  EXPECT_EQ(ops::expand_dims(kM, -1).shape(), (Shape{6, 1}));
  EXPECT_EQ(ops::squeeze(ops::reshape(kM, {1, 6, 1})).shape(), (Shape{6}));
  EXPECT_EQ(ops::squeeze(ops::reshape(kM, {1, 6, 1}), {0}).shape(), (Shape{6, 1}));
}

TEST(ShapeOps, Transpose) {
  const Tensor m = ops::reshape(kM, {2, 3});
  EXPECT_EQ(ops::transpose(m).to_vector<float>(), (V{0, 3, 1, 4, 2, 5}));
  const Tensor t = testing::random_f64({2, 3, 4});
  const Tensor p = ops::transpose(t, {2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(ops::transpose(p, {1, 2, 0}).to_vector<double>(), t.to_vector<double>());
}

TEST(ShapeOps, BroadcastTo) {
  EXPECT_EQ(ops::broadcast_to(tensor({1, 2}), {2, 2}).to_vector<float>(), (V{1, 2, 1, 2}));
  EXPECT_EQ(ops::broadcast_to(tensor({1, 2}, {2, 1}), {2, 3}).to_vector<float>(),
            (V{1, 1, 1, 2, 2, 2}));
}

TEST(ShapeOps, StridedSliceIsPythonSlicing) {
  // x[1::2], x[::-1], x[-2:]
  EXPECT_EQ(ops::strided_slice(kM, {1}, {6}, {2}).to_vector<float>(), (V{1, 3, 5}));
  EXPECT_EQ(ops::strided_slice(kM, {5}, {-7}, {-1}).to_vector<float>(), (V{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(ops::strided_slice(kM, {-2}, {100}, {1}).to_vector<float>(), (V{4, 5}));
  EXPECT_EQ(ops::strided_slice(kM, {4}, {2}, {1}).numel(), 0);
  const Tensor m = ops::reshape(kM, {2, 3});
  EXPECT_EQ(ops::slice(m, {0, 1}, {2, 2}).to_vector<float>(), (V{1, 2, 4, 5}));
}

TEST(ShapeOps, ConcatStackSplitPad) {
  const Tensor a = tensor({1, 2}, {1, 2});
  const Tensor b = tensor({3, 4, 5, 6}, {2, 2});
  EXPECT_EQ(ops::concat({a, b}, 0).to_vector<float>(), (V{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ops::concat({b, b}, 1).to_vector<float>(), (V{3, 4, 3, 4, 5, 6, 5, 6}));
  EXPECT_EQ(ops::stack({tensor({1, 2}), tensor({3, 4})}, 1).to_vector<float>(), (V{1, 3, 2, 4}));
  const auto parts = ops::split(kM, 3, 0);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].to_vector<float>(), (V{4, 5}));
  const auto uneven = ops::split(kM, std::vector<int64_t>{1, 5}, 0);
  EXPECT_EQ(uneven[1].shape(), (Shape{5}));
  EXPECT_EQ(ops::pad(a, {{1, 0}, {0, 1}}, 9).to_vector<float>(), (V{9, 9, 9, 1, 2, 9}));
}

TEST(ShapeOps, Gradients) {
  const Tensor x = testing::random_f64({2, 3, 4});
  auto check = [&](auto fn) {
    testing::expect_gradients_match([&](const std::vector<Tensor>& in) { return fn(in[0]); }, {x});
  };
  check([](const Tensor& t) { return ops::reshape(t, {6, 4}); });
  check([](const Tensor& t) { return ops::transpose(t, {1, 2, 0}); });
  check([](const Tensor& t) {
    return ops::broadcast_to(ops::reshape(t, {2, 1, 3, 4}), {2, 5, 3, 4});
  });
  check([](const Tensor& t) { return ops::strided_slice(t, {1, 2, 3}, {0, -4, 0}, {-1, -1, -2}); });
  check([](const Tensor& t) { return ops::slice(t, {0, 1, 1}, {2, 2, -1}); });
  check([](const Tensor& t) { return ops::pad(t, {{0, 1}, {2, 0}, {1, 1}}); });
  check([](const Tensor& t) { return ops::concat({t, ops::square(t)}, 1); });
  check([](const Tensor& t) { return ops::stack({t, t * 2.0}, -1); });
  check([](const Tensor& t) { return ops::split(t, 2, 2)[1]; });
}

TEST(ShapeOps, LikeOpsTakeTheRuntimeShape) {
  const Tensor like = zeros({2, 3});
  EXPECT_EQ(ops::broadcast_like(tensor({1, 2, 3}), like).to_vector<float>(), (V{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(ops::reshape_like(kM, like).shape(), (Shape{2, 3}));
  EXPECT_EQ(ops::size_of(like).item<float>(), 6);
  EXPECT_EQ(ops::size_of(like, {1}, DType::i64).item<int64_t>(), 3);
  EXPECT_EQ(ops::zeros_like(like).to_vector<float>(), (V(6, 0.0f)));
  const Tensor x = testing::random_f64({3, 1});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return ops::broadcast_like(in[0], zeros({2, 3, 4}));
      },
      {x});
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return ops::reshape_like(in[0], zeros({1, 3}));
      },
      {x});
  EXPECT_EQ(ops::unflatten_like(zeros({6, 5}), zeros({2, 3, 4}), 2).shape(), (Shape{2, 3, 5}));
  testing::expect_gradients_match(
      [&](const std::vector<Tensor>& in) {
        return ops::unflatten_like(in[0], zeros({3, 1, 7}), 2);
      },
      {x});
}

TEST(ShapeOps, SecondOrderThroughSliceAdjoint) {
  // strided_slice's gradient is an op too, and differentiable.
  const Tensor x = testing::random_f64({5});
  testing::expect_gradients_match(
      [](const std::vector<Tensor>& in) {
        const auto g = grad(
            [](const std::vector<Tensor>& p) {
              return ops::sum(ops::square(ops::strided_slice(p[0], {0}, {5}, {2})));
            },
            {in[0]});
        return g[0];
      },
      {x});
}

}  // namespace
}  // namespace kiln
