// What a user can see of a traced function: counters, signatures, graphs, plans, eager mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/engine/executor/op_profiler.h"
#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

auto dense_relu() {
  return [](const Tensor& x, const Tensor& w) { return ops::relu(ops::matmul(x, w) + 1.0); };
}

TEST(Introspection, CountersSignaturesAndGraphs) {
  auto f = function(dense_relu(), {.name = "dense", .arg_names = {"x", "w"}});
  const Tensor w = ones({4, 2});
  f(ones({3, 4}), w);
  f(ones({3, 4}), w);
  const FunctionStats s = f.stats();
  EXPECT_EQ(s.calls, 2);
  EXPECT_EQ(s.traces, 1);
  EXPECT_EQ(s.plans, 1);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_GT(s.trace_seconds, 0);
  EXPECT_GT(s.compile_seconds, 0);
  EXPECT_EQ(
      f.concrete_signatures(),
      std::vector<std::string>{"dense(x: float32[3, 4], w: float32[4, 2]) -> (float32[3, 2])"});
  EXPECT_EQ(f.graph_text(0, false),
            "%0: float32[3, 4] = placeholder() {index=0}\n"
            "%1: float32[4, 2] = placeholder() {index=1}\n"
            "%2: float32[3, 2] = matmul(%0, %1) {transpose_a=false, transpose_b=false}\n"
            "%3: float32[] = constant() <1>\n"
            "%4: float32[3, 2] = add(%2, %3)\n"
            "%5: float32[3, 2] = relu(%4)\n"
            "return (%5)\n");
  const std::string dot = f.graph_dot(0);
  EXPECT_THAT(dot, HasSubstr("digraph \"dense\""));
  EXPECT_THAT(dot, HasSubstr("matmul"));
  EXPECT_THAT(dot, HasSubstr("-> out0"));
}

TEST(Introspection, ProfilerGroupsStepsByWhatTheyCompute) {
  auto f = function(dense_relu(), {.name = "dense"});
  const Tensor w = ones({4, 2});
  f(ones({3, 4}), w);  // traced and planned before profiling starts: only runs are timed
  engine::profiler::reset();
  engine::profiler::start();
  for (int i = 0; i < 3; ++i) f(ones({3, 4}), w);
  f(ones({5, 4}), w);  // another plan: its steps are groups of their own
  engine::profiler::stop();
  f(ones({3, 4}), w);  // not counted
  const std::string report = engine::profiler::report();
  engine::profiler::reset();
  EXPECT_THAT(report, HasSubstr("op profile"));
  EXPECT_THAT(report, ::testing::MatchesRegex(
                          "(.|\n)* 3 +[0-9.]+  matmul\\(float32\\[3, 4\\], float32\\[4, "
                          "2\\]\\) -> float32\\[3, 2\\] \\{transpose_a=false(.|\n)*"));
  EXPECT_THAT(report, HasSubstr("-> float32[5, 2] {dtype=float32} <float32: t0 = add(x0, x1); "
                                "t1 = relu(t0)>"));
  EXPECT_THAT(engine::profiler::report(), Not(HasSubstr("matmul")));
}

TEST(Introspection, PlanSharesMemoryAndRunsElementwiseOpsInPlace) {
  auto chain = function([](const Tensor& x) {
    Tensor y = x * 2.0;
    for (int i = 0; i < 6; ++i) y = ops::tanh(ops::matmul(y, y) + 1.0);
    return ops::sum(y);
  });
  chain(ones({64, 64}));
  const auto plans = chain.plan_stats();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_LT(plans[0].arena_bytes, plans[0].unshared_bytes / 3);
  EXPECT_GE(plans[0].in_place_steps, 6);
}

TEST(Introspection, EagerSwitchGivesTheSameResults) {
  auto f = function(dense_relu());
  const Tensor x = arange(0.0, 12.0, 1.0, DType::f32).view({3, 4});
  const Tensor w = full({4, 2}, -0.1);
  const Tensor traced = f(x, w);
  run_functions_eagerly(true);
  const Tensor eager = f(x, w);
  run_functions_eagerly(false);
  EXPECT_EQ(traced.to_vector<float>(), eager.to_vector<float>());
  EXPECT_EQ(f.stats().eager_calls, 1);
  EXPECT_EQ(f.stats().traces, 1);

  auto always_eager = function(dense_relu(), {.run_eagerly = true});
  EXPECT_EQ(always_eager(x, w).to_vector<float>(), traced.to_vector<float>());
  EXPECT_EQ(always_eager.stats().traces, 0);
}

TEST(Introspection, NestedFunctionsInlineIntoTheOuterTrace) {
  auto inner = function([](const Tensor& x) { return x * 3.0; });
  auto outer = function([&](const Tensor& x) { return inner(x) + 1.0; });
  EXPECT_EQ(outer(ones({2})).to_vector<float>(), (std::vector<float>{4, 4}));
  EXPECT_EQ(inner.stats().traces, 0);
}

TEST(Introspection, ResultsKeepTheirStructure) {
  auto f = function([](const std::map<std::string, Tensor>& in) {
    return std::tuple{in.at("a") + in.at("b"), std::vector{in.at("a"), in.at("b") * 2.0}, 7};
  });
  auto [sum, parts, tag] = f(std::map<std::string, Tensor>{{"a", ones({2})}, {"b", ones({2})}});
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{2, 2}));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].to_vector<float>(), (std::vector<float>{2, 2}));
  EXPECT_EQ(tag, 7);
}

TEST(Introspection, TracingErrorsNameTheFunctionAndSignature) {
  auto f = function([](const Tensor& x) { return ops::matmul(x, x); }, {.name = "square_mm"});
  try {
    f(ones({2, 3}));
    FAIL() << "expected a shape error";
  } catch (const ShapeError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("function 'square_mm' (tracing square_mm(arg0: float32[2, 3]))"));
    EXPECT_THAT(e.what(), HasSubstr("kiln::ops::matmul"));
  }
}

TEST(Introspection, LeakedSymbolicTensorIsAClearError) {
  Tensor leaked;
  auto keep = function([&](const Tensor& x) {
    leaked = x * 2.0;
    return leaked;
  });
  keep(ones({2}));
  auto use = function([&](const Tensor& x) { return x + leaked; });
  try {
    use(ones({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("belongs to another trace"));
  }
}

}  // namespace
}  // namespace kiln
