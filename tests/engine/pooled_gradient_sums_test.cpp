// The pass that sums a max-pool gradient before it is spread over the pool's input: the rewritten
// graph, the sums it leaves alone, and traced bias gradients equal to eager ones for windows that
// tile, overlap or pad.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "tests/engine/graph_builder.h"
#include "tests/engine/graph_text.h"
#include "tests/test_support/expect_close.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;
using testing::id_of_first;

Attrs sum_over(std::vector<int64_t> axes, bool keepdims) {
  return {{"axes", std::move(axes)}, {"keepdims", keepdims}};
}

TEST(PooledGradientSums, SumsOverRowsAndColumnsTakeThePooledGradient) {
  GraphBuilder b;
  const NodeId y = b.input({2, 4, 4, 3});
  const NodeId g = b.input({2, 2, 2, 3});
  const Attrs pool{{"pool_size", std::vector<int64_t>{2, 2}},
                   {"strides", std::vector<int64_t>{2, 2}},
                   {"same", false}};
  const NodeId spread = b.op(OpId::max_pool2d_grad, {y, g}, pool);
  const Graph graph = b.finish({b.op(OpId::reduce_sum, {spread}, sum_over({0, 1, 2}, true)),
                                b.op(OpId::reduce_sum, {spread}, sum_over({1, 2}, false)),
                                b.op(OpId::reduce_sum, {spread}, sum_over({0, 1}, false))});
  EXPECT_EQ(to_text(eliminate_dead_code(sum_pooled_gradients(graph))),
            "%0: float32[2, 4, 4, 3] = placeholder() {index=0}\n"
            "%1: float32[2, 2, 2, 3] = placeholder() {index=1}\n"
            "%2: float32[2, 4, 4, 3] = max_pool2d_grad(%0, %1) {pool_size=[2, 2], strides=[2, 2], "
            "same=false}\n"
            "%3: float32[1, 1, 1, 3] = sum(%1) {axes=[0, 1, 2], keepdims=true}\n"
            "%4: float32[2, 3] = sum(%1) {axes=[1, 2], keepdims=false}\n"
            "%5: float32[4, 3] = sum(%2) {axes=[0, 1], keepdims=false}\n"
            "return (%3, %4, %5)\n");
}

// A convolution's bias gradient through relu and a max-pool, for pools whose windows tile, overlap
// or reach into 'same' padding.
TEST(PooledGradientSums, TracedBiasGradientsMatchEager) {
  random::Generator gen(5);
  const Tensor x = random::uniform({3, 9, 8, 2}, -2, 2, DType::f32, gen);
  const Tensor w = random::uniform({3, 3, 2, 4}, -1, 1, DType::f32, gen);
  const Tensor b = random::uniform({4}, -1, 1, DType::f32, gen);
  struct Pool {
    std::vector<int64_t> size, strides;
    ops::Padding padding;
  };
  for (const Pool& p :
       {Pool{{2, 2}, {2, 2}, ops::Padding::valid}, Pool{{3, 3}, {2, 2}, ops::Padding::valid},
        Pool{{3, 2}, {2, 3}, ops::Padding::same}}) {
    const auto loss = [&](const std::vector<Tensor>& v) {
      const Tensor h = ops::relu(ops::conv2d(x, v[0], {1, 1}, ops::Padding::same) + v[1]);
      return ops::sum(ops::square(ops::max_pool2d(h, p.size, p.strides, p.padding)));
    };
    auto traced = function([&](const std::vector<Tensor>& v) { return grad(loss, v); });
    const std::vector<Tensor> got = traced({w, b}), want = grad(loss, {w, b});
    const std::vector<float> g = got[1].to_vector<float>(), e = want[1].to_vector<float>();
    ASSERT_EQ(g.size(), e.size());
    for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], e[i], 1e-4 * (1 + std::abs(e[i])));
    // The filter gradient sums over the batch and the pixels: oneDNN's kernel for it may block
    // that sum differently when traced and eager on one instruction set.
    kiln::testing::expect_close_after_reductions(got[0], want[0], 3 * 9 * 8, "filter gradient");
    const std::string text = traced.graph_text();
    // The gradient is the one from the pool's argmax (keep_pool_argmax).
    ASSERT_NE(text.find("= max_pool2d_grad_from_argmax("), std::string::npos) << text;
    EXPECT_EQ(text.find("sum(" + id_of_first(text, "max_pool2d_grad_from_argmax") + ")"),
              std::string::npos)
        << text;
  }
}

}  // namespace
}  // namespace kiln::engine
