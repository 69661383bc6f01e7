// Ops on symbolic tensors (tracing) run no kernel: they infer shapes with unknown dims and record
// the graph, gradients included.
#include <gtest/gtest.h>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/graph/node.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

TEST(Symbolic, OpsRecordNodesWithUnknownDims) {
  const Tensor x = Tensor::symbolic({DType::f32, Shape{-1, 4}, {}});
  const Tensor w = ones({4, 3});
  const Tensor y = ops::relu(ops::matmul(x, w) + 1.0);
  EXPECT_TRUE(y.is_symbolic());
  EXPECT_EQ(y.shape(), (Shape{-1, 3}));
  ASSERT_NE(y.node(), nullptr);
  EXPECT_EQ(y.node()->op, OpId::relu);
  const Tensor sum = y.node()->inputs[0];
  EXPECT_EQ(sum.node()->op, OpId::add);
  EXPECT_EQ(sum.node()->inputs[0].node()->op, OpId::matmul);
  EXPECT_THROW(y.raw_data(), Error);
}

TEST(Symbolic, GradientsOfATracedGraphAreGraphsToo) {
  Tensor w = Tensor::symbolic({DType::f32, Shape{4, 3}, {}});
  w.set_requires_grad(true);
  const Tensor x = ones({2, 4});
  const Tensor loss = ops::sum(ops::tanh(ops::matmul(x, w)));
  const Tensor g = gradients(loss, {w})[0];
  EXPECT_TRUE(g.is_symbolic());
  EXPECT_EQ(g.shape(), (Shape{4, 3}));
  ASSERT_NE(g.node(), nullptr);
}

TEST(Symbolic, GradientsWithAnUnknownBatchDim) {
  Tensor x = Tensor::symbolic({DType::f32, Shape{-1, 4}, {}});
  Tensor w = Tensor::symbolic({DType::f32, Shape{4, 3}, {}});
  Tensor b = Tensor::symbolic({DType::f32, Shape{3}, {}});
  for (Tensor* t : {&x, &w, &b}) t->set_requires_grad(true);
  // mean over the unknown batch, broadcasting of b, reductions with keepdims and squeezes.
  const Tensor logits = ops::matmul(x, w) + b;
  const Tensor loss = -ops::mean(ops::log_softmax(logits)) + ops::mean(ops::max(x, {1}));
  const auto g = gradients(loss, {x, w, b});
  EXPECT_EQ(g[0].shape(), (Shape{-1, 4}));
  EXPECT_EQ(g[1].shape(), (Shape{4, 3}));
  EXPECT_EQ(g[2].shape(), (Shape{3}));
  for (const Tensor& t : g) EXPECT_TRUE(t.is_symbolic());
  EXPECT_TRUE(ops::zeros_like(x).is_symbolic());
}

}  // namespace
}  // namespace kiln
