// The pass that folds a convolution's or a Dense layer's bias add and relu into one
// conv2d_bias_activation or matmul_bias_activation node: the rewritten graph, the cases it leaves
// alone, and traced values and gradients equal to eager ones to the rounding of oneDNN's
// reductions (the fused and the plain kernels may block their sums differently on one
// instruction set).
#include <gtest/gtest.h>

#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "tests/engine/graph_builder.h"
#include "tests/test_support/expect_close.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

const Attrs kConv{{"strides", std::vector<int64_t>{1, 1}},
                  {"dilation", std::vector<int64_t>{1, 1}},
                  {"same", false},
                  {"groups", int64_t{1}}};

// A training step's values: the loss's gradient with respect to every input, then the loss.
template <typename Loss>
std::vector<Tensor> gradients_and_loss(const Loss& loss, const std::vector<Tensor>& v) {
  std::vector<Tensor> out = grad(loss, v);
  out.push_back(loss(v));
  return out;
}

std::string after(const Graph& g) {
  return to_text(eliminate_dead_code(fuse_bias_activation(g)));
}

TEST(ConvBiasActivation, FoldsTheBiasAndTheRelu) {
  GraphBuilder b;
  const NodeId x = b.input({-1, 4, 4, 2});
  const NodeId w = b.input({3, 3, 2, 3});
  const NodeId bias = b.input({3});
  const NodeId relu =
      b.op(OpId::relu, {b.op(OpId::add, {b.op(OpId::conv2d, {x, w}, kConv), bias})});
  // The bias on the left, and no activation.
  const NodeId linear = b.op(OpId::add, {bias, b.op(OpId::conv2d, {x, w}, kConv)});
  const Graph graph = b.finish({relu, linear});
  EXPECT_EQ(after(graph),
            "%0: float32[?, 4, 4, 2] = placeholder() {index=0}\n"
            "%1: float32[3, 3, 2, 3] = placeholder() {index=1}\n"
            "%2: float32[3] = placeholder() {index=2}\n"
            "%3: float32[?, 2, 2, 3] = conv2d_bias_activation(%0, %1, %2) {strides=[1, 1], "
            "dilation=[1, 1], same=false, groups=1, relu=true}\n"
            "%4: float32[?, 2, 2, 3] = conv2d_bias_activation(%0, %1, %2) {strides=[1, 1], "
            "dilation=[1, 1], same=false, groups=1, relu=false}\n"
            "return (%3, %4)\n");
}

TEST(ConvBiasActivation, LeavesSharedValuesAndOtherAddsAlone) {
  GraphBuilder b;
  const NodeId x = b.input({1, 4, 4, 2});
  const NodeId w = b.input({3, 3, 2, 3});
  const NodeId bias = b.input({3});
  const NodeId per_pixel = b.input({2, 2, 3});
  const NodeId conv = b.op(OpId::conv2d, {x, w}, kConv);
  const NodeId other = b.op(OpId::conv2d, {x, w}, kConv);
  // The convolution's own value is also returned; a bias per pixel, not per channel.
  const Graph graph = b.finish({b.op(OpId::add, {conv, bias}), conv,
                                b.op(OpId::relu, {b.op(OpId::add, {other, per_pixel})})});
  EXPECT_EQ(after(graph), to_text(eliminate_dead_code(graph)));
}

TEST(ConvBiasActivation, KeepsTheReluWhenTheSumIsAlsoUsed) {
  GraphBuilder b;
  const NodeId x = b.input({1, 4, 4, 2});
  const NodeId w = b.input({3, 3, 2, 3});
  const NodeId bias = b.input({3});
  const NodeId sum = b.op(OpId::add, {b.op(OpId::conv2d, {x, w}, kConv), bias});
  const Graph graph = b.finish({b.op(OpId::relu, {sum}), sum});
  EXPECT_EQ(after(graph),
            "%0: float32[1, 4, 4, 2] = placeholder() {index=0}\n"
            "%1: float32[3, 3, 2, 3] = placeholder() {index=1}\n"
            "%2: float32[3] = placeholder() {index=2}\n"
            "%3: float32[1, 2, 2, 3] = conv2d_bias_activation(%0, %1, %2) {strides=[1, 1], "
            "dilation=[1, 1], same=false, groups=1, relu=false}\n"
            "%4: float32[1, 2, 2, 3] = relu(%3)\n"
            "return (%4, %3)\n");
}

TEST(ConvBiasActivation, TracedTrainingStepEqualsEager) {
  random::Generator gen(3);
  const Tensor x = random::uniform({4, 9, 8, 3}, -1, 1, DType::f32, gen);
  const Tensor w1 = random::uniform({3, 3, 3, 5}, -1, 1, DType::f32, gen);
  const Tensor b1 = random::uniform({5}, -1, 1, DType::f32, gen);
  const Tensor w2 = random::uniform({3, 3, 5, 4}, -1, 1, DType::f32, gen);
  const Tensor b2 = random::uniform({4}, -1, 1, DType::f32, gen);
  const auto loss = [](const std::vector<Tensor>& v) {
    const Tensor h = ops::relu(ops::conv2d(v[0], v[1], {1, 1}, ops::Padding::same) + v[2]);
    const Tensor y = v[4] + ops::conv2d(ops::max_pool2d(h, {2, 2}), v[3], {1, 1});
    return ops::sum(ops::square(y));
  };
  const auto step = [&](const std::vector<Tensor>& v) { return gradients_and_loss(loss, v); };
  const std::vector<Tensor> inputs{x, w1, b1, w2, b2};
  // The pooled gradient sums pass would reorder b1's gradient sum: this test is about the fusion.
  FunctionOptions options;
  options.passes.pooled_gradient_sums = false;
  auto traced = function(step, options);
  const std::vector<Tensor> got = traced(inputs), want = step(inputs);
  ASSERT_EQ(got.size(), want.size());
  // The longest chain of sums: a filter gradient of the second convolution sums over the batch
  // and the pooled pixels (4*4*4) of products whose factors are themselves 3*3*3-term sums.
  const int64_t reductions = 4 * 4 * 4 * 3 * 3 * 3;
  for (size_t k = 0; k < got.size(); ++k) {
    kiln::testing::expect_close_after_reductions(got[k], want[k], reductions,
                                                 "output " + std::to_string(k));
  }
  EXPECT_NE(traced.graph_text().find("conv2d_bias_activation"), std::string::npos)
      << traced.graph_text();
}

const Attrs kMatmul{{"transpose_a", false}, {"transpose_b", false}};

TEST(DenseBiasActivation, FoldsTheBiasAndTheReluOfAnUntransposedProduct) {
  GraphBuilder b;
  const NodeId x = b.input({-1, 5, 4});  // a Dense layer on sequences: the rows fold
  const NodeId w = b.input({4, 3});
  const NodeId bias = b.input({3});
  const NodeId relu =
      b.op(OpId::relu, {b.op(OpId::add, {b.op(OpId::matmul, {x, w}, kMatmul), bias})});
  const NodeId linear = b.op(OpId::add, {bias, b.op(OpId::matmul, {x, w}, kMatmul)});
  const Graph graph = b.finish({relu, linear});
  EXPECT_EQ(after(graph),
            "%0: float32[?, 5, 4] = placeholder() {index=0}\n"
            "%1: float32[4, 3] = placeholder() {index=1}\n"
            "%2: float32[3] = placeholder() {index=2}\n"
            "%3: float32[?, 5, 3] = matmul_bias_activation(%0, %1, %2) {transpose_a=false, "
            "transpose_b=false, relu=true}\n"
            "%4: float32[?, 5, 3] = matmul_bias_activation(%0, %1, %2) {transpose_a=false, "
            "transpose_b=false, relu=false}\n"
            "return (%3, %4)\n");
}

TEST(DenseBiasActivation, LeavesTransposedAndBatchedProductsAlone) {
  GraphBuilder b;
  const NodeId x = b.input({2, 4});
  const NodeId wt = b.input({3, 4});
  const NodeId batched_w = b.input({2, 4, 3});
  const NodeId bias = b.input({3});
  const NodeId transposed =
      b.op(OpId::matmul, {x, wt}, {{"transpose_a", false}, {"transpose_b", true}});
  const NodeId batched = b.op(OpId::matmul, {b.input({2, 2, 4}), batched_w}, kMatmul);
  const Graph graph =
      b.finish({b.op(OpId::add, {transposed, bias}), b.op(OpId::add, {batched, bias})});
  EXPECT_EQ(after(graph), to_text(eliminate_dead_code(graph)));
}

// The fused op computes what its three ops compute, in float32 and float64 to the rounding of the
// product's sum and on folded rows; in bfloat16 it is their float32 value rounded once.
TEST(DenseBiasActivation, TheFusedOpEqualsMatmulThenBiasThenRelu) {
  random::Generator gen(5);
  for (const DType dtype : {DType::f32, DType::f64, DType::bf16}) {
    for (const Shape& x_shape : {Shape{37, 70}, Shape{3, 11, 70}}) {
      const Tensor x = random::uniform(x_shape, -1, 1, dtype, gen);
      const Tensor w = random::uniform({70, 45}, -1, 1, dtype, gen);
      const Tensor bias = random::uniform({45}, -1, 1, dtype, gen);
      // bfloat16's reference sums in float32 on the same values.
      const DType wide = dtype == DType::bf16 ? DType::f32 : dtype;
      const Tensor biased =
          ops::matmul(ops::cast(x, wide), ops::cast(w, wide)) + ops::cast(bias, wide);
      for (const bool relu : {false, true}) {
        Attrs attrs = kMatmul;
        attrs.set("relu", relu);
        const Tensor got = apply(OpId::matmul_bias_activation, {x, w, bias}, attrs);
        const Tensor want = relu ? ops::relu(biased) : biased;
        const std::string what = std::string(dtype_name(dtype)) + " x" + x_shape.to_string() +
                                 " relu=" + std::to_string(relu);
        if (dtype == DType::bf16)
          kiln::testing::expect_bf16_rounded_once(got, want, 70, what);
        else
          kiln::testing::expect_close_after_reductions(got, want, 70, what);
      }
    }
  }
}

TEST(DenseBiasActivation, TracedTrainingStepEqualsEager) {
  random::Generator gen(4);
  const Tensor x = random::uniform({16, 30}, -1, 1, DType::f32, gen);
  const Tensor w1 = random::uniform({30, 20}, -1, 1, DType::f32, gen);
  const Tensor b1 = random::uniform({20}, -1, 1, DType::f32, gen);
  const Tensor w2 = random::uniform({20, 5}, -1, 1, DType::f32, gen);
  const Tensor b2 = random::uniform({5}, -1, 1, DType::f32, gen);
  const auto loss = [](const std::vector<Tensor>& v) {
    const Tensor h = ops::relu(ops::matmul(v[0], v[1]) + v[2]);
    return ops::sum(ops::square(ops::matmul(h, v[3]) + v[4]));
  };
  const auto step = [&](const std::vector<Tensor>& v) { return gradients_and_loss(loss, v); };
  const std::vector<Tensor> inputs{x, w1, b1, w2, b2};
  auto traced = function(step);
  const std::vector<Tensor> got = traced(inputs), want = step(inputs);
  ASSERT_EQ(got.size(), want.size());
  // The longest chain of sums: w1's gradient sums over the batch of products whose factors are
  // themselves 30- and 20-term sums.
  const int64_t reductions = 16 * 30 * 20;
  for (size_t k = 0; k < got.size(); ++k) {
    kiln::testing::expect_close_after_reductions(got[k], want[k], reductions,
                                                 "output " + std::to_string(k));
  }
  EXPECT_NE(traced.graph_text().find("matmul_bias_activation"), std::string::npos)
      << traced.graph_text();
}

}  // namespace
}  // namespace kiln::engine
