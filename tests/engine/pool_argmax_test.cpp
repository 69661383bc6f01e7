// The pass that keeps a max pool's argmax for its gradient: the rewritten graph, the cases it
// leaves alone, and traced gradients equal to eager ones bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

Attrs pool_attrs(int64_t window, int64_t stride) {
  return {{"pool_size", std::vector<int64_t>{window, window}},
          {"strides", std::vector<int64_t>{stride, stride}},
          {"same", false}};
}

std::string after(const Graph& g) {
  return to_text(eliminate_dead_code(keep_pool_argmax(g)));
}

TEST(PoolArgmax, ThePoolKeepsItsArgmaxForTheGradient) {
  GraphBuilder b;
  const NodeId x = b.input({-1, 4, 4, 2});
  const NodeId g = b.input({-1, 2, 2, 2});
  const NodeId pooled = b.op(OpId::max_pool2d, {x}, pool_attrs(2, 2));
  const NodeId grad = b.op(OpId::max_pool2d_grad, {x, g}, pool_attrs(2, 2));
  const Graph graph = b.finish({pooled, grad});
  EXPECT_EQ(after(graph),
            "%0: float32[?, 4, 4, 2] = placeholder() {index=0}\n"
            "%1: float32[?, 2, 2, 2] = placeholder() {index=1}\n"
            "%2: float32[?, 2, 2, 2] = max_pool2d_with_argmax(%0) {pool_size=[2, 2], "
            "strides=[2, 2], same=false}\n"
            "%3: uint8[?, 2, 2, 2] = tuple_get(%2) {index=1}\n"
            "%4: float32[?, 4, 4, 2] = max_pool2d_grad_from_argmax(%3, %1) {pool_size=[2, 2], "
            "strides=[2, 2], same=false, input_hw=[4, 4]}\n"
            "return (%2, %4)\n");
}

TEST(PoolArgmax, LeavesPoolsWithoutTheirGradientAlone) {
  GraphBuilder b;
  const NodeId x = b.input({1, 4, 4, 2});
  const NodeId other = b.input({1, 4, 4, 2});
  const NodeId unknown_size = b.input({1, -1, -1, 2});
  const NodeId g = b.input({1, 2, 2, 2});
  const NodeId g1 = b.input({1, 3, 3, 2});
  const NodeId g_unknown = b.input({1, -1, -1, 2});
  // A pool with no gradient (inference); a gradient of another input's pool; a gradient of a
  // pool with other attrs; an input whose height and width are unknown.
  const Graph graph =
      b.finish({b.op(OpId::max_pool2d, {x}, pool_attrs(2, 2)),
                b.op(OpId::max_pool2d_grad, {other, g}, pool_attrs(2, 2)),
                b.op(OpId::max_pool2d_grad, {x, g1}, pool_attrs(2, 1)),
                b.op(OpId::max_pool2d, {unknown_size}, pool_attrs(2, 2)),
                b.op(OpId::max_pool2d_grad, {unknown_size, g_unknown}, pool_attrs(2, 2))});
  EXPECT_EQ(after(graph), to_text(eliminate_dead_code(graph)));
}

// Values in steps of 0.5: ties within windows, which route through the recorded argmax as
// through max_pool2d_grad's own search.
Tensor coarse(const Shape& shape, uint64_t seed) {
  random::Generator gen(seed);
  const Tensor steps = ops::cast(random::uniform(shape, -6.0, 6.0, DType::f32, gen), DType::i32);
  return ops::cast(steps, DType::f32) * 0.5;
}

// Windows that tile, overlap and pad, in a step's gradients: of the pooled input, and through a
// convolution below it.
TEST(PoolArgmax, TracedGradientsEqualEagerOnes) {
  struct Case {
    std::vector<int64_t> pool, strides;
    ops::Padding padding;
  };
  const Tensor x = coarse({3, 9, 8, 2}, 1), w = coarse({3, 3, 2, 2}, 2);
  for (const Case& c :
       {Case{{2, 2}, {2, 2}, ops::Padding::valid}, Case{{3, 3}, {1, 1}, ops::Padding::same},
        Case{{3, 2}, {2, 3}, ops::Padding::same}}) {
    const auto loss = [&](const std::vector<Tensor>& v) {
      const Tensor pooled = ops::max_pool2d(v[0], c.pool, c.strides, c.padding) +
                            ops::max_pool2d(ops::conv2d(v[0], v[1], {1, 1}, ops::Padding::same),
                                            c.pool, c.strides, c.padding);
      return ops::sum(ops::square(pooled));
    };
    auto traced = function([&](const std::vector<Tensor>& v) { return grad(loss, v); });
    const std::vector<Tensor> got = traced({x, w}), want = grad(loss, {x, w});
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_EQ(got[k].to_vector<float>(), want[k].to_vector<float>()) << "gradient " << k;
    const std::string text = traced.graph_text();
    EXPECT_NE(text.find("= max_pool2d_grad_from_argmax("), std::string::npos) << text;
    EXPECT_EQ(text.find("= max_pool2d_grad("), std::string::npos) << text;
  }
}

// A float32 pool's argmax is oneDNN's uint8 workspace, which it keeps as uint8 for windows of at
// most 255 cells: a 255-cell window keeps its argmax, a 256-cell one searches x again, and both
// train.
TEST(PoolArgmax, KeepsTheArgmaxOfWindowsUpTo255Cells) {
  struct Case {
    std::vector<int64_t> pool;
    bool kept;
  };
  for (const Case& c : {Case{{15, 17}, true}, Case{{16, 16}, false}}) {
    const std::vector<int64_t>& pool = c.pool;
    const Tensor x = coarse({2, pool[0], pool[1], 3}, 3);
    const auto loss = [&](const std::vector<Tensor>& v) {
      return ops::sum(ops::square(ops::max_pool2d(v[0], pool, pool, ops::Padding::valid)));
    };
    auto traced = function([&](const std::vector<Tensor>& v) { return grad(loss, v); });
    EXPECT_EQ(traced({x})[0].to_vector<float>(), grad(loss, {x})[0].to_vector<float>());
    const std::string text = traced.graph_text();
    EXPECT_EQ(text.find("= max_pool2d_grad_from_argmax(") != std::string::npos, c.kept) << text;
  }
}

}  // namespace
}  // namespace kiln::engine
