// The pass that moves relu's gradient mask through a max-pool gradient: the rewritten graph, the
// cases it leaves alone, and traced gradients equal to eager ones bit for bit (ties, windows with
// no positive value, overlapping windows).
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

const Attrs kPool2x2{{"pool_size", std::vector<int64_t>{2, 2}},
                     {"strides", std::vector<int64_t>{2, 2}},
                     {"same", false}};

std::string after(const Graph& g) {
  return to_text(eliminate_dead_code(mask_pooled_gradients(g)));
}

TEST(PooledGradientMasks, MovesTheMaskOntoThePooledGradient) {
  GraphBuilder b;
  const NodeId y = b.input({1, 4, 4, 2});
  const NodeId g = b.input({1, 2, 2, 2});
  const NodeId pooled = b.op(OpId::max_pool2d, {y}, kPool2x2);
  const NodeId grad = b.op(OpId::max_pool2d_grad, {y, g}, kPool2x2);
  const NodeId zero = b.constant(scalar(0));
  const NodeId mask = b.op(OpId::cast, {b.op(OpId::greater, {y, zero})}, {{"dtype", DType::f32}});
  const Graph graph = b.finish({pooled, b.op(OpId::mul, {mask, grad})});
  EXPECT_EQ(after(graph),
            "%0: float32[1, 4, 4, 2] = placeholder() {index=0}\n"
            "%1: float32[1, 2, 2, 2] = placeholder() {index=1}\n"
            "%2: float32[1, 2, 2, 2] = max_pool2d(%0) {pool_size=[2, 2], strides=[2, 2], "
            "same=false}\n"
            "%3: float32[] = constant() <0>\n"
            "%4: bool[1, 2, 2, 2] = greater(%2, %3)\n"
            "%5: float32[1, 2, 2, 2] = cast(%4) {dtype=float32}\n"
            "%6: float32[1, 2, 2, 2] = mul(%1, %5)\n"
            "%7: float32[1, 4, 4, 2] = max_pool2d_grad(%0, %6) {pool_size=[2, 2], strides=[2, "
            "2], same=false}\n"
            "return (%2, %7)\n");
}

TEST(PooledGradientMasks, LeavesOtherMasksAlone) {
  GraphBuilder b;
  const NodeId y = b.input({1, 4, 4, 2});
  const NodeId other = b.input({1, 4, 4, 2});
  const NodeId g = b.input({1, 2, 2, 2});
  const NodeId pooled = b.op(OpId::max_pool2d, {y}, kPool2x2);
  const NodeId zero = b.constant(scalar(0));
  auto mask_of = [&](NodeId x) {
    return b.op(OpId::cast, {b.op(OpId::greater, {x, zero})}, {{"dtype", DType::f32}});
  };
  // A mask of another tensor; a gradient that is also returned; a per-channel threshold; a
  // gradient whose forward pool is not in the graph.
  const NodeId grad = b.op(OpId::max_pool2d_grad, {y, g}, kPool2x2);
  const NodeId shared = b.op(OpId::max_pool2d_grad, {y, g}, kPool2x2);
  const NodeId thresholds = b.input({2});
  const NodeId channel_mask =
      b.op(OpId::cast, {b.op(OpId::greater, {y, thresholds})}, {{"dtype", DType::f32}});
  const NodeId unpooled = b.op(OpId::max_pool2d_grad, {other, g}, kPool2x2);
  const Graph graph = b.finish(
      {pooled, b.op(OpId::mul, {grad, mask_of(other)}), b.op(OpId::mul, {shared, mask_of(y)}),
       shared, b.op(OpId::mul, {b.op(OpId::max_pool2d_grad, {y, g}, kPool2x2), channel_mask}),
       b.op(OpId::mul, {unpooled, mask_of(other)})});
  EXPECT_EQ(after(graph), to_text(eliminate_dead_code(graph)));
}

// Values in steps of 0.5 around zero: ties within windows and windows with no positive value.
Tensor coarse(const Shape& shape, uint64_t seed) {
  random::Generator gen(seed);
  const Tensor steps = ops::cast(random::uniform(shape, -6.0, 6.0, DType::f32, gen), DType::i32);
  return ops::cast(steps, DType::f32) * 0.5;
}

void expect_bitwise_equal(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_EQ(got[k].to_vector<float>(), want[k].to_vector<float>()) << "output " << k;
}

TEST(PooledGradientMasks, TracedGradientsEqualEagerOnes) {
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  struct Case {
    std::vector<int64_t> pool, strides;
    ops::Padding padding;
  };
  for (const Case& c :
       {Case{{2, 2}, {2, 2}, ops::Padding::valid}, Case{{3, 3}, {1, 1}, ops::Padding::same},
        Case{{3, 2}, {2, 1}, ops::Padding::valid}}) {
    const Fn loss = [&](const std::vector<Tensor>& v) {
      const Tensor pooled = ops::max_pool2d(ops::relu(v[0] + v[1]), c.pool, c.strides, c.padding);
      return ops::sum(pooled * v[2]);
    };
    const Tensor x = coarse({3, 7, 6, 4}, 1), bias = coarse({4}, 2);
    const Tensor weights = coarse(ops::max_pool2d(x, c.pool, c.strides, c.padding).shape(), 3);
    const std::vector<Tensor> want = grad(loss, {x, bias, weights});
    auto gradients = [&](const std::vector<Tensor>& v) { return grad(loss, v); };
    auto traced = function(gradients);
    expect_bitwise_equal(traced({x, bias, weights}), want);
    // Unfused, the optimized graph shows the rewrite: the mask compares the pooled values (of
    // the pool that keeps its argmax, keep_pool_argmax).
    auto unfused = function(gradients, {.passes = {.fusion = false}});
    expect_bitwise_equal(unfused({x, bias, weights}), want);
    const std::string text = unfused.graph_text(0);
    const size_t pool_line = text.rfind('%', text.find("= max_pool2d_with_argmax("));
    const std::string pool_id = text.substr(pool_line, text.find(':', pool_line) - pool_line);
    EXPECT_NE(text.find("greater(" + pool_id + ","), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace kiln::engine
