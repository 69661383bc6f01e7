// Graph passes: each test builds a small graph, checks its printed text, runs one pass and dead-
// code elimination, and checks the printed result; the last tests check that traced functions
// with every pass on compute what eager calls compute.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/engine/function/function.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

using Pass = Graph (*)(const Graph&);

// The pass, then dead-code elimination, printed.
std::string after(Pass pass, const Graph& g) {
  return to_text(eliminate_dead_code(pass(g)));
}

Attrs perm(std::vector<int64_t> p) {
  return {{"perm", std::move(p)}};
}
Attrs shape(std::vector<int64_t> s) {
  return {{"shape", std::move(s)}};
}

// ---- simplify ----

TEST(Simplify, DropsMultiplyByOneAndAddZeroOnEitherSide) {
  GraphBuilder b;
  const NodeId x = b.input({2, 3});
  const NodeId one = b.constant(scalar(1));
  const NodeId zero = b.constant(zeros({3}));
  const NodeId m = b.op(OpId::mul, {one, x});
  const NodeId a = b.op(OpId::add, {m, zero});
  const NodeId s = b.op(OpId::sub, {a, zero});
  const Graph g = b.finish({b.op(OpId::div, {s, one})});
  EXPECT_EQ(to_text(g),
            "%0: float32[2, 3] = placeholder() {index=0}\n"
            "%1: float32[] = constant() <1>\n"
            "%2: float32[3] = constant() <0, 0, 0>\n"
            "%3: float32[2, 3] = mul(%1, %0)\n"
            "%4: float32[2, 3] = add(%3, %2)\n"
            "%5: float32[2, 3] = sub(%4, %2)\n"
            "%6: float32[2, 3] = div(%5, %1)\n"
            "return (%6)\n");
  EXPECT_EQ(after(simplify, g),
            "%0: float32[2, 3] = placeholder() {index=0}\n"
            "return (%0)\n");
}

TEST(Simplify, KeepsIdentityElementsThatBroadcastOrAreNotExact) {
  GraphBuilder b;
  const NodeId x = b.input({3});
  const NodeId ones_2x3 = b.constant(ones({2, 3}));
  const NodeId almost_one = b.constant(scalar(1.0000001, DType::f64));
  const NodeId x64 = b.input({3}, DType::f64);
  const NodeId zero = b.constant(scalar(0));
  const Graph g = b.finish({b.op(OpId::mul, {x, ones_2x3}), b.op(OpId::mul, {x64, almost_one}),
                            b.op(OpId::sub, {zero, x})});
  // Dead-code elimination alone keeps the same graph: nothing is simplified away.
  EXPECT_EQ(after(simplify, g), to_text(eliminate_dead_code(g)));
  EXPECT_EQ(to_text(g),
            "%0: float32[3] = placeholder() {index=0}\n"
            "%1: float32[2, 3] = constant() <float32[2, 3]>\n"
            "%2: float64[] = constant() <1>\n"
            "%3: float64[3] = placeholder() {index=1}\n"
            "%4: float32[] = constant() <0>\n"
            "%5: float32[2, 3] = mul(%0, %1)\n"
            "%6: float64[3] = mul(%3, %2)\n"
            "%7: float32[3] = sub(%4, %0)\n"
            "return (%5, %6, %7)\n");
}

TEST(Simplify, MergesTransposeChains) {
  GraphBuilder b;
  const NodeId x = b.input({2, 3, 4});
  const NodeId t1 = b.op(OpId::transpose, {x}, perm({1, 0, 2}));
  const NodeId t2 = b.op(OpId::transpose, {t1}, perm({0, 2, 1}));
  const NodeId u1 = b.op(OpId::transpose, {x}, perm({1, 2, 0}));
  const NodeId u2 = b.op(OpId::transpose, {u1}, perm({2, 0, 1}));
  const Graph g = b.finish({t2, u2});
  EXPECT_EQ(to_text(g),
            "%0: float32[2, 3, 4] = placeholder() {index=0}\n"
            "%1: float32[3, 2, 4] = transpose(%0) {perm=[1, 0, 2]}\n"
            "%2: float32[3, 4, 2] = transpose(%1) {perm=[0, 2, 1]}\n"
            "%3: float32[3, 4, 2] = transpose(%0) {perm=[1, 2, 0]}\n"
            "%4: float32[2, 3, 4] = transpose(%3) {perm=[2, 0, 1]}\n"
            "return (%2, %4)\n");
  // The first chain becomes one transpose; the second composes to the identity.
  EXPECT_EQ(after(simplify, g),
            "%0: float32[2, 3, 4] = placeholder() {index=0}\n"
            "%1: float32[3, 4, 2] = transpose(%0) {perm=[1, 2, 0]}\n"
            "return (%1, %0)\n");
}

TEST(Simplify, MergesReshapeChainsAndDropsReshapesToTheSameShape) {
  GraphBuilder b;
  const NodeId x = b.input({-1, 4});
  const NodeId flat = b.op(OpId::reshape, {x}, shape({-1}));
  const NodeId pairs = b.op(OpId::reshape, {flat}, shape({-1, 2}));
  const NodeId back = b.op(OpId::reshape, {flat}, shape({-1, 4}));
  const Graph g = b.finish({pairs, back});
  EXPECT_EQ(to_text(g),
            "%0: float32[?, 4] = placeholder() {index=0}\n"
            "%1: float32[?] = reshape(%0) {shape=[-1]}\n"
            "%2: float32[?, 2] = reshape(%1) {shape=[-1, 2]}\n"
            "%3: float32[?, 4] = reshape(%1) {shape=[-1, 4]}\n"
            "return (%2, %3)\n");
  EXPECT_EQ(after(simplify, g),
            "%0: float32[?, 4] = placeholder() {index=0}\n"
            "%1: float32[?, 2] = reshape(%0) {shape=[-1, 2]}\n"
            "return (%1, %0)\n");
}

TEST(Simplify, DropsReshapeLikeToTheSameMetaWithOneUnknownDim) {
  GraphBuilder b;
  const NodeId x = b.input({-1, 4});
  const NodeId like = b.input({-1, 4});
  const NodeId grid = b.input({-1, -1});
  const NodeId grid_like = b.input({-1, -1});
  const Graph g =
      b.finish({b.op(OpId::reshape_like, {x, like}), b.op(OpId::reshape_like, {grid, grid_like})});
  // [?, ?] into [?, ?] may be [2, 6] into [3, 4]: only the first is dropped.
  EXPECT_EQ(after(simplify, g),
            "%0: float32[?, 4] = placeholder() {index=0}\n"
            "%1: float32[?, 4] = placeholder() {index=1}\n"
            "%2: float32[?, ?] = placeholder() {index=2}\n"
            "%3: float32[?, ?] = placeholder() {index=3}\n"
            "%4: float32[?, ?] = reshape_like(%2, %3)\n"
            "return (%0, %4)\n");
}

TEST(Simplify, DropsSameDtypeCastsIdentitiesAndDoubleNegation) {
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId same = b.op(OpId::cast, {x}, {{"dtype", DType::f32}});
  const NodeId widen = b.op(OpId::cast, {x}, {{"dtype", DType::f64}});
  const NodeId id = b.op(OpId::identity, {same});
  const NodeId n1 = b.op(OpId::neg, {id});
  const NodeId n2 = b.op(OpId::neg, {b.op(OpId::identity, {n1})});
  const Graph g = b.finish({n2, widen, n1});
  EXPECT_EQ(to_text(g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = cast(%0) {dtype=float32}\n"
            "%2: float64[2] = cast(%0) {dtype=float64}\n"
            "%3: float32[2] = identity(%1)\n"
            "%4: float32[2] = neg(%3)\n"
            "%5: float32[2] = identity(%4)\n"
            "%6: float32[2] = neg(%5)\n"
            "return (%6, %2, %4)\n");
  EXPECT_EQ(after(simplify, g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float64[2] = cast(%0) {dtype=float64}\n"
            "%2: float32[2] = neg(%0)\n"
            "return (%0, %1, %2)\n");
}

TEST(Simplify, RedirectsAssignments) {
  Variable v(zeros({2}), "v");
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId read = b.variable(v);
  b.assign(v, b.op(OpId::identity, {b.op(OpId::add, {read, x})}));
  const Graph g = b.finish({});
  EXPECT_EQ(to_text(g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = read_variable() variable 'v' float32[2]\n"
            "%2: float32[2] = add(%1, %0)\n"
            "%3: float32[2] = identity(%2)\n"
            "assign 'v' = %3\n"
            "return ()\n");
  EXPECT_EQ(after(simplify, g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = read_variable() variable 'v' float32[2]\n"
            "%2: float32[2] = add(%1, %0)\n"
            "assign 'v' = %2\n"
            "return ()\n");
}

// ---- constant folding ----

TEST(FoldConstants, EvaluatesConstantSubexpressions) {
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId two = b.constant(scalar(2));
  const NodeId three = b.constant(scalar(3));
  const NodeId six = b.op(OpId::mul, {two, three});
  const NodeId seven = b.op(OpId::add, {six, b.constant(scalar(1))});
  const Graph g = b.finish({b.op(OpId::mul, {seven, x})});
  EXPECT_EQ(to_text(g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[] = constant() <2>\n"
            "%2: float32[] = constant() <3>\n"
            "%3: float32[] = mul(%1, %2)\n"
            "%4: float32[] = constant() <1>\n"
            "%5: float32[] = add(%3, %4)\n"
            "%6: float32[2] = mul(%5, %0)\n"
            "return (%6)\n");
  EXPECT_EQ(after(fold_constants, g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[] = constant() <7>\n"
            "%2: float32[2] = mul(%1, %0)\n"
            "return (%2)\n");
}

TEST(FoldConstants, FoldsViewsAndKeepsLargeResults) {
  GraphBuilder b;
  const NodeId c = b.constant(arange(6, DType::f32));
  const NodeId reshaped = b.op(OpId::reshape, {c}, shape({2, 3}));
  const NodeId transposed = b.op(OpId::transpose, {reshaped}, perm({1, 0}));
  const NodeId big = b.op(OpId::broadcast_to, {b.constant(scalar(1))}, shape({300, 300}));
  const Graph g = b.finish({transposed, big});
  EXPECT_EQ(to_text(g),
            "%0: float32[6] = constant() <float32[6]>\n"
            "%1: float32[2, 3] = reshape(%0) {shape=[2, 3]}\n"
            "%2: float32[3, 2] = transpose(%1) {perm=[1, 0]}\n"
            "%3: float32[] = constant() <1>\n"
            "%4: float32[300, 300] = broadcast_to(%3) {shape=[300, 300]}\n"
            "return (%2, %4)\n");
  const Graph folded = eliminate_dead_code(fold_constants(g));
  EXPECT_EQ(to_text(folded),
            "%0: float32[3, 2] = constant() <float32[3, 2]>\n"
            "%1: float32[] = constant() <1>\n"
            "%2: float32[300, 300] = broadcast_to(%1) {shape=[300, 300]}\n"
            "return (%0, %2)\n");
  EXPECT_EQ(folded.constant(NodeId(0)).value.to_vector<float>(),
            (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(FoldConstants, CountsKnownDimsButNotUnknownOnes) {
  GraphBuilder b;
  const NodeId x = b.input({Shape::kUnknownDim, 4});
  const NodeId rows =
      b.op(OpId::size_of, {x}, Attrs{{"axes", std::vector<int64_t>{0}}, {"dtype", DType::f32}});
  const NodeId cols =
      b.op(OpId::size_of, {x}, Attrs{{"axes", std::vector<int64_t>{1}}, {"dtype", DType::f32}});
  const Graph g = b.finish({b.op(OpId::div, {x, cols}), rows});
  EXPECT_EQ(after(fold_constants, g),
            "%0: float32[?, 4] = placeholder() {index=0}\n"
            "%1: float32[] = size_of(%0) {axes=[0], dtype=float32}\n"
            "%2: float32[] = constant() <4>\n"
            "%3: float32[?, 4] = div(%0, %2)\n"
            "return (%3, %1)\n");
}

// One constant cannot stand for an op's several outputs: an update of constants stays an op.
TEST(FoldConstants, LeavesOpsWithSeveralOutputs) {
  GraphBuilder b;
  const NodeId c = b.constant(full({3}, 0.5, DType::f32));
  const NodeId next = b.op(OpId::adam_update, {c, c, c, c, b.constant(scalar(0.1))},
                           Attrs{{"beta_1", 0.9}, {"beta_2", 0.999}, {"epsilon", 1e-7}});
  const Graph g = b.finish({next, b.output(next, 1)});
  EXPECT_EQ(after(fold_constants, g), to_text(g));
}

// ---- common subexpressions ----

TEST(CommonSubexpressions, MergesEqualNodesTransitively) {
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId e1 = b.op(OpId::exp, {x});
  const NodeId e2 = b.op(OpId::exp, {x});
  const NodeId r1 = b.op(OpId::relu, {e1});
  const NodeId r2 = b.op(OpId::relu, {e2});
  const Graph g = b.finish({b.op(OpId::add, {r1, r2})});
  EXPECT_EQ(to_text(g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = exp(%0)\n"
            "%2: float32[2] = exp(%0)\n"
            "%3: float32[2] = relu(%1)\n"
            "%4: float32[2] = relu(%2)\n"
            "%5: float32[2] = add(%3, %4)\n"
            "return (%5)\n");
  EXPECT_EQ(after(eliminate_common_subexpressions, g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = exp(%0)\n"
            "%2: float32[2] = relu(%1)\n"
            "%3: float32[2] = add(%2, %2)\n"
            "return (%3)\n");
}

TEST(CommonSubexpressions, KeepsDifferentArgumentsAttrsAndVariables) {
  Variable v(zeros({2}), "v"), w(zeros({2}), "w");
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId y = b.input({2});
  const NodeId v1 = b.variable(v);
  const NodeId v2 = b.variable(v);
  const NodeId w1 = b.variable(w);
  const Graph g = b.finish({b.op(OpId::exp, {x}), b.op(OpId::exp, {y}),
                            b.op(OpId::leaky_relu, {x}, {{"alpha", 0.1}}),
                            b.op(OpId::leaky_relu, {x}, {{"alpha", 0.2}}), v1, v2, w1});
  EXPECT_EQ(to_text(g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = placeholder() {index=1}\n"
            "%2: float32[2] = read_variable() variable 'v' float32[2]\n"
            "%3: float32[2] = read_variable() variable 'v' float32[2]\n"
            "%4: float32[2] = read_variable() variable 'w' float32[2]\n"
            "%5: float32[2] = exp(%0)\n"
            "%6: float32[2] = exp(%1)\n"
            "%7: float32[2] = leaky_relu(%0) {alpha=0.1}\n"
            "%8: float32[2] = leaky_relu(%0) {alpha=0.2}\n"
            "return (%5, %6, %7, %8, %2, %3, %4)\n");
  // Only the two reads of v merge.
  EXPECT_EQ(after(eliminate_common_subexpressions, g),
            "%0: float32[2] = placeholder() {index=0}\n"
            "%1: float32[2] = placeholder() {index=1}\n"
            "%2: float32[2] = read_variable() variable 'v' float32[2]\n"
            "%3: float32[2] = read_variable() variable 'w' float32[2]\n"
            "%4: float32[2] = exp(%0)\n"
            "%5: float32[2] = exp(%1)\n"
            "%6: float32[2] = leaky_relu(%0) {alpha=0.1}\n"
            "%7: float32[2] = leaky_relu(%0) {alpha=0.2}\n"
            "return (%4, %5, %6, %7, %2, %2, %3)\n");
}

TEST(CommonSubexpressions, MergesSmallConstantsWithEqualBytesOnly) {
  GraphBuilder b;
  const NodeId two = b.constant(scalar(2));
  const NodeId also_two = b.constant(scalar(2));
  const NodeId two_f64 = b.constant(scalar(2, DType::f64));
  const NodeId zero = b.constant(scalar(0.0));
  const NodeId negative_zero = b.constant(scalar(-0.0));
  const NodeId big = b.constant(ones({65}));
  const NodeId also_big = b.constant(ones({65}));
  const Graph g = b.finish({two, also_two, two_f64, zero, negative_zero, big, also_big});
  EXPECT_EQ(to_text(g),
            "%0: float32[] = constant() <2>\n"
            "%1: float32[] = constant() <2>\n"
            "%2: float64[] = constant() <2>\n"
            "%3: float32[] = constant() <0>\n"
            "%4: float32[] = constant() <-0>\n"
            "%5: float32[65] = constant() <float32[65]>\n"
            "%6: float32[65] = constant() <float32[65]>\n"
            "return (%0, %1, %2, %3, %4, %5, %6)\n");
  EXPECT_EQ(after(eliminate_common_subexpressions, g),
            "%0: float32[] = constant() <2>\n"
            "%1: float64[] = constant() <2>\n"
            "%2: float32[] = constant() <0>\n"
            "%3: float32[] = constant() <-0>\n"
            "%4: float32[65] = constant() <float32[65]>\n"
            "%5: float32[65] = constant() <float32[65]>\n"
            "return (%0, %0, %1, %2, %3, %4, %5)\n");
}

// ---- the whole pipeline through kiln::function ----

Tensor filled(const Shape& shape) {
  return (arange(0.0, static_cast<double>(shape.numel()), 1.0, DType::f32) - 2.5).view(shape);
}

// Outputs of a traced call and of the eager call, element by element (fused kernels may round
// differently from the op-by-op ones).
void expect_same_values(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
    const std::vector<float> g = got[i].to_vector<float>(), w = want[i].to_vector<float>();
    for (size_t k = 0; k < g.size(); ++k)
      EXPECT_NEAR(g[k], w[k], 1e-6 * std::abs(w[k])) << "output " << i << ", element " << k;
  }
}

TEST(Passes, TracedFunctionMatchesEagerCalls) {
  auto body = [](const Tensor& x) {
    // Tracing runs 2 * 3 eagerly (no symbolic input), so the graph captures 6.
    const Tensor scaled = (scalar(2) * scalar(3)) * x;
    const Tensor same = apply(OpId::cast, {x * 1.0}, {{"dtype", x.dtype()}});  // x
    const Tensor back = ops::transpose(ops::transpose(same, {1, 0}), {1, 0});  // x
    const Tensor twice = ops::exp(back) + ops::exp(x);                         // one exp
    return std::vector<Tensor>{scaled + twice, ops::identity(back), ops::neg(ops::neg(x))};
  };
  auto traced = function(body);
  // Without fusion the optimized graph shows what these passes did.
  auto unfused = function(body, {.passes = {.fusion = false}});
  for (const Shape& s : {Shape{2, 3}, Shape{4, 1}}) {
    const Tensor x = filled(s);
    expect_same_values(traced(x), body(x));
    expect_same_values(unfused(x), body(x));
  }
  EXPECT_EQ(unfused.graph_text(0),
            "%0: float32[2, 3] = placeholder() {index=0}\n"
            "%1: float32[] = constant() <6>\n"
            "%2: float32[2, 3] = mul(%1, %0)\n"
            "%3: float32[2, 3] = exp(%0)\n"
            "%4: float32[2, 3] = add(%3, %3)\n"
            "%5: float32[2, 3] = add(%2, %4)\n"
            "return (%5, %0, %0)\n");
}

TEST(Passes, EachPassCanBeSwitchedOff) {
  auto body = [](const Tensor& x) { return ops::identity(x) * (scalar(2) * scalar(3)); };
  PassOptions none{.simplify = false,
                   .fold_constants = false,
                   .common_subexpressions = false,
                   .pooled_gradient_masks = false,
                   .bias_activation = false,
                   .record_gradient_slices = false,
                   .fusion = false,
                   .dead_code = false};
  auto traced = function(body, {.passes = none});
  const Tensor x = filled({3});
  EXPECT_EQ(traced(x).to_vector<float>(), body(x).to_vector<float>());
  EXPECT_EQ(traced.graph_text(0), traced.graph_text(0, /*optimized=*/false));
}

}  // namespace
}  // namespace kiln::engine
