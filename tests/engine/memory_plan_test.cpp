// Memory planning: liveness-based sharing of one arena and in-place elementwise steps, shown by
// the printed plan with reuse on and off.
#include <gtest/gtest.h>

#include "engine/executor/executable.h"
#include "framework/ops/ops.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

// x -> exp -> matmul(., w) -> relu -> matmul(., w) -> tanh -> sum; w is a variable.
std::shared_ptr<const Graph> chain(const Variable& w) {
  GraphBuilder b;
  const int x = b.input({4, 4});
  const int wv = b.variable(w);
  const Attrs mm{{"transpose_a", false}, {"transpose_b", false}};
  const int e = b.op(OpId::exp, {x});
  const int m1 = b.op(OpId::matmul, {e, wv}, mm);
  const int r = b.op(OpId::relu, {m1});
  const int m2 = b.op(OpId::matmul, {r, wv}, mm);
  const int t = b.op(OpId::tanh, {m2});
  const int flat = b.op(OpId::reshape, {t}, Attrs{{"shape", std::vector<int64_t>{16}}});
  const int s =
      b.op(OpId::reduce_sum, {flat}, Attrs{{"axes", std::vector<int64_t>{0}}, {"keepdims", false}});
  return std::make_shared<const Graph>(b.finish({s}));
}

TEST(MemoryPlan, SharesTheArenaAndRunsElementwiseStepsInPlace) {
  const Variable w(ones({4, 4}), "w");
  const auto graph = chain(w);
  const std::vector<TensorMeta> inputs{{DType::f32, {4, 4}, {}}};
  Executable shared(graph, inputs);
  EXPECT_EQ(shared.plan_text(),
            "%0: float32[4, 4] placeholder -> argument 0\n"
            "%1: float32[4, 4] read_variable -> variable 'w'\n"
            "%2: float32[4, 4] exp -> arena [0, 64)\n"
            "%3: float32[4, 4] matmul -> arena [64, 128)\n"
            "%4: float32[4, 4] relu -> in place over %3\n"
            "%5: float32[4, 4] matmul -> arena [0, 64)\n"
            "%6: float32[4, 4] tanh -> in place over %5\n"
            "%7: float32[16] reshape -> view of %6\n"
            "%8: float32[] sum -> returned (allocated per call)\n"
            "arena 128 bytes (320 unshared)\n");
  Executable separate(graph, inputs, PlanOptions{.reuse_memory = false});
  EXPECT_EQ(separate.plan_text(),
            "%0: float32[4, 4] placeholder -> argument 0\n"
            "%1: float32[4, 4] read_variable -> variable 'w'\n"
            "%2: float32[4, 4] exp -> arena [0, 64)\n"
            "%3: float32[4, 4] matmul -> arena [64, 128)\n"
            "%4: float32[4, 4] relu -> arena [128, 192)\n"
            "%5: float32[4, 4] matmul -> arena [192, 256)\n"
            "%6: float32[4, 4] tanh -> arena [256, 320)\n"
            "%7: float32[16] reshape -> view of %6\n"
            "%8: float32[] sum -> returned (allocated per call)\n"
            "arena 320 bytes (320 unshared)\n");

  const Tensor x = arange(0.0, 1.6, 0.1, DType::f32).view({4, 4});
  const Tensor want =
      ops::sum(ops::tanh(ops::matmul(ops::relu(ops::matmul(ops::exp(x), w.value())), w.value())));
  EXPECT_FLOAT_EQ(shared.run(std::vector{x})[0].item<float>(), want.item<float>());
  EXPECT_FLOAT_EQ(separate.run(std::vector{x})[0].item<float>(), want.item<float>());
}

}  // namespace
}  // namespace kiln::engine
