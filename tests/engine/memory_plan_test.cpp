// Memory planning: liveness-based sharing of one arena, in-place elementwise steps and
// assignments computed straight into their variables, shown by the printed plan with reuse on
// and off.
#include <gtest/gtest.h>

#include "kiln/engine/executor/plan.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

// x -> exp -> matmul(., w) -> relu -> matmul(., w) -> tanh -> sum; w is a variable.
std::shared_ptr<const Graph> chain(const Variable& w) {
  GraphBuilder b;
  const NodeId x = b.input({4, 4});
  const NodeId wv = b.variable(w);
  const Attrs mm{{"transpose_a", false}, {"transpose_b", false}};
  const NodeId e = b.op(OpId::exp, {x});
  const NodeId m1 = b.op(OpId::matmul, {e, wv}, mm);
  const NodeId r = b.op(OpId::relu, {m1});
  const NodeId m2 = b.op(OpId::matmul, {r, wv}, mm);
  const NodeId t = b.op(OpId::tanh, {m2});
  const NodeId flat = b.op(OpId::reshape, {t}, Attrs{{"shape", std::vector<int64_t>{16}}});
  const NodeId s =
      b.op(OpId::reduce_sum, {flat}, Attrs{{"axes", std::vector<int64_t>{0}}, {"keepdims", false}});
  return std::make_shared<const Graph>(b.finish({s}));
}

TEST(MemoryPlan, SharesTheArenaAndRunsElementwiseStepsInPlace) {
  const Variable w(ones({4, 4}), "w");
  const auto graph = chain(w);
  const std::vector<TensorMeta> inputs{{DType::f32, {4, 4}, {}}};
  Plan shared(graph, inputs);
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
  Plan separate(graph, inputs, PlanOptions{.reuse_memory = false});
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

// An SGD-like update: w <- w - 0.5 * g, and m <- m + g returned beside the loss-like sum(w).
TEST(MemoryPlan, AnUpdateAfterTheLastReadIsComputedIntoItsVariable) {
  const Variable w(arange(0.0, 4.0, 1.0, DType::f32), "w");
  const Variable m(ones({4}), "m");
  GraphBuilder b;
  const NodeId g = b.input({4});
  const NodeId wv = b.variable(w);
  const NodeId mv = b.variable(m);
  const NodeId scaled = b.op(OpId::mul, {g, b.constant(full({}, 0.5, DType::f32))});
  const NodeId new_w = b.op(OpId::sub, {wv, scaled});
  const NodeId new_m = b.op(OpId::add, {mv, g});
  const NodeId total =
      b.op(OpId::reduce_sum, {mv}, Attrs{{"axes", std::vector<int64_t>{0}}, {"keepdims", false}});
  b.assign(w, new_w);
  b.assign(m, new_m);
  const auto graph = std::make_shared<const Graph>(b.finish({total}));
  Plan plan(graph, std::vector<TensorMeta>{{DType::f32, {4}, {}}});
  // w's last read is the elementwise step computing its update; m is still read by the sum
  // after its update is computed, so that update goes through the arena and a copy.
  EXPECT_EQ(plan.plan_text(),
            "%0: float32[4] placeholder -> argument 0\n"
            "%1: float32[4] read_variable -> variable 'w'\n"
            "%2: float32[4] read_variable -> variable 'm'\n"
            "%3: float32[] constant -> constant\n"
            "%4: float32[4] mul -> arena [0, 64)\n"
            "%5: float32[4] sub -> assigned in place to variable 'w'\n"
            "%6: float32[4] add -> arena [0, 64)\n"
            "%7: float32[] sum -> returned (allocated per call)\n"
            "arena 64 bytes (192 unshared)\n");
  EXPECT_EQ(plan.stats().in_place_assignments, 1);
  EXPECT_EQ(Plan(graph, std::vector<TensorMeta>{{DType::f32, {4}, {}}},
                 PlanOptions{.reuse_memory = false})
                .stats()
                .in_place_assignments,
            0);

  const Tensor grad = full({4}, 2.0, DType::f32);
  for (int run = 1; run <= 2; ++run) {
    const float old_m_sum = static_cast<float>(4 + 2 * 4 * (run - 1));
    EXPECT_FLOAT_EQ(plan.run(std::vector{grad})[0].item<float>(), old_m_sum) << "run " << run;
    const auto f = [](int v) { return static_cast<float>(v); };
    EXPECT_EQ(w.value().to_vector<float>(),
              (std::vector<float>{f(-run), f(1 - run), f(2 - run), f(3 - run)}))
        << "run " << run;
    EXPECT_EQ(m.value().to_vector<float>(), std::vector<float>(4, f(1 + 2 * run))) << "run " << run;
  }
}

// Adam's one-pass update of w and its moments, each output computed straight into its variable;
// a graph leaving the moments unused still runs (the kernel writes them to scratch).
TEST(MemoryPlan, AnUpdateWithSeveralOutputsIsComputedIntoItsVariables) {
  const Tensor w0 = arange(0.0, 4.0, 1.0, DType::f32);
  const Variable w(w0, "w");
  const Variable m(full({4}, 0.5, DType::f32), "m");
  const Variable v(full({4}, 0.25, DType::f32), "v");
  const Tensor alpha = full({}, 0.1, DType::f32);
  const Attrs adam{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}};
  auto update_graph = [&](bool moments) {
    GraphBuilder b;
    const NodeId g = b.input({4});
    const NodeId next =
        b.op(OpId::adam_update, {b.variable(w), b.variable(m), b.variable(v), g, b.constant(alpha)},
             adam);
    b.assign(w, next);
    if (moments) {
      b.assign(m, b.output(next, 1));
      b.assign(v, b.output(next, 2));
    }
    return std::make_shared<const Graph>(b.finish({}));
  };
  const Tensor grad = from_vector<float>({1, -2, 3, -4}, {4});
  const ops::AdamUpdate want =
      ops::adam_update(w0, m.value(), v.value(), grad, alpha, 0.9, 0.999, 1e-7);

  Plan plan(update_graph(true), std::vector<TensorMeta>{grad.meta()});
  EXPECT_EQ(plan.plan_text(),
            "%0: float32[4] placeholder -> argument 0\n"
            "%1: float32[4] read_variable -> variable 'w'\n"
            "%2: float32[4] read_variable -> variable 'm'\n"
            "%3: float32[4] read_variable -> variable 'v'\n"
            "%4: float32[] constant -> constant\n"
            "%5: float32[4] adam_update -> assigned in place to variable 'w'\n"
            "%6: float32[4] tuple_get -> assigned in place to variable 'm'\n"
            "%7: float32[4] tuple_get -> assigned in place to variable 'v'\n"
            "arena 0 bytes (192 unshared)\n");
  EXPECT_EQ(plan.stats().in_place_assignments, 3);
  plan.run(std::vector{grad});
  EXPECT_EQ(w.value().to_vector<float>(), want.variable.to_vector<float>());
  EXPECT_EQ(m.value().to_vector<float>(), want.m.to_vector<float>());
  EXPECT_EQ(v.value().to_vector<float>(), want.v.to_vector<float>());

  w.assign(w0);
  m.assign(full({4}, 0.5, DType::f32));
  v.assign(full({4}, 0.25, DType::f32));
  Plan(update_graph(false), std::vector<TensorMeta>{grad.meta()}).run(std::vector{grad});
  EXPECT_EQ(w.value().to_vector<float>(), want.variable.to_vector<float>());
  EXPECT_EQ(m.value().to_vector<float>(), std::vector<float>(4, 0.5F));
}

// A variable returned as it is must keep its old value until the run ends, and one assigned from
// another variable's old value must see it even when that one is updated too.
TEST(MemoryPlan, ReturnedAndCopiedVariablesKeepTheirOldValue) {
  const Variable a(full({3}, 1.0, DType::f32), "a");
  const Variable c(full({3}, 5.0, DType::f32), "c");
  GraphBuilder b;
  const NodeId x = b.input({3});
  const NodeId av = b.variable(a);
  const NodeId cv = b.variable(c);
  b.assign(a, b.op(OpId::add, {av, x}));
  b.assign(c, av);
  const auto graph = std::make_shared<const Graph>(b.finish({av, cv}));
  Plan plan(graph, std::vector<TensorMeta>{{DType::f32, {3}, {}}});
  EXPECT_EQ(plan.stats().in_place_assignments, 0);
  const std::vector<Tensor> out = plan.run(std::vector{full({3}, 2.0, DType::f32)});
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>(3, 1.0F));
  EXPECT_EQ(out[1].to_vector<float>(), std::vector<float>(3, 5.0F));
  EXPECT_EQ(a.value().to_vector<float>(), std::vector<float>(3, 3.0F));
  EXPECT_EQ(c.value().to_vector<float>(), std::vector<float>(3, 1.0F));
}

// A reshape of a captured tensor (which a pass may add after constant folding) views its data.
TEST(MemoryPlan, AViewOfAConstantReadsTheCapturedData) {
  GraphBuilder b;
  const NodeId x = b.input({2, 3});
  const NodeId captured = b.constant(from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {6}));
  const NodeId view = b.op(OpId::reshape, {captured}, {{"shape", std::vector<int64_t>{2, 3}}});
  const auto graph = std::make_shared<const Graph>(b.finish({b.op(OpId::add, {x, view})}));
  Plan plan(graph, std::vector<TensorMeta>{{DType::f32, {2, 3}, {}}});
  EXPECT_EQ(plan.run(std::vector{full({2, 3}, 10.0, DType::f32)})[0].to_vector<float>(),
            (std::vector<float>{11, 12, 13, 14, 15, 16}));
}

}  // namespace
}  // namespace kiln::engine
