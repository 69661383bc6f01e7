// Elementwise fusion: the printed graph before and after the pass, the fused kernel against the
// unfused graph on every kind of broadcast input, and traced functions (values and gradients)
// with fusion on against fusion off and eager calls.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "kiln/engine/executor/plan.h"
#include "kiln/engine/function/function.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

Attrs dtype_attr(DType dtype) {
  return {{"dtype", dtype}};
}

// ---- the pass ----

TEST(Fusion, ChainWithBroadcastBiasBecomesOneNode) {
  GraphBuilder b;
  const NodeId x = b.input({4, 3});
  const NodeId w = b.input({4, 3});
  const NodeId bias = b.input({3});
  const NodeId a = b.op(OpId::add, {b.op(OpId::mul, {x, w}), bias});
  const Graph g = b.finish({b.op(OpId::relu, {a})});
  EXPECT_EQ(to_text(g),
            "%0: float32[4, 3] = placeholder() {index=0}\n"
            "%1: float32[4, 3] = placeholder() {index=1}\n"
            "%2: float32[3] = placeholder() {index=2}\n"
            "%3: float32[4, 3] = mul(%0, %1)\n"
            "%4: float32[4, 3] = add(%3, %2)\n"
            "%5: float32[4, 3] = relu(%4)\n"
            "return (%5)\n");
  EXPECT_EQ(to_text(fuse_elementwise(g)),
            "%0: float32[4, 3] = placeholder() {index=0}\n"
            "%1: float32[4, 3] = placeholder() {index=1}\n"
            "%2: float32[3] = placeholder() {index=2}\n"
            "%3: float32[4, 3] = fused_elementwise(%0, %1, %2) {dtype=float32} "
            "<float32: t0 = mul(x0, x1); t1 = add(t0, x2); t2 = relu(t1)>\n"
            "return (%3)\n");
}

TEST(Fusion, ValuesUsedOutsideTheGroupStayNodes) {
  GraphBuilder b;
  const NodeId x = b.input({2, 2});
  const NodeId two = b.constant(scalar(2));
  const NodeId e = b.op(OpId::exp, {x});  // returned
  const NodeId m = b.op(OpId::mul, {b.op(OpId::tanh, {e}), two});
  const NodeId s = b.op(OpId::sigmoid, {m});  // read by matmul
  const NodeId mm = b.op(OpId::matmul, {s, x}, {{"transpose_a", false}, {"transpose_b", false}});
  const Graph g = b.finish({e, mm});
  EXPECT_EQ(to_text(fuse_elementwise(g)),
            "%0: float32[2, 2] = placeholder() {index=0}\n"
            "%1: float32[] = constant() <2>\n"
            "%2: float32[2, 2] = exp(%0)\n"
            "%3: float32[2, 2] = fused_elementwise(%2, %1) {dtype=float32} "
            "<float32: t0 = tanh(x0); t1 = mul(t0, x1); t2 = sigmoid(t1)>\n"
            "%4: float32[2, 2] = matmul(%3, %0) {transpose_a=false, transpose_b=false}\n"
            "return (%2, %4)\n");
}

// A per-row value joining a full-size chain would be recomputed for every element of the row.
TEST(Fusion, ValuesOfAnotherShapeStayOutside) {
  GraphBuilder b;
  const NodeId x = b.input({4, 3});
  const NodeId v = b.input({4, 1});
  const NodeId s = b.op(OpId::sigmoid, {v});
  const Graph g = b.finish({b.op(OpId::mul, {b.op(OpId::exp, {x}), s})});
  EXPECT_EQ(to_text(fuse_elementwise(g)),
            "%0: float32[4, 3] = placeholder() {index=0}\n"
            "%1: float32[4, 1] = placeholder() {index=1}\n"
            "%2: float32[4, 1] = sigmoid(%1)\n"
            "%3: float32[4, 3] = fused_elementwise(%0, %2) {dtype=float32} "
            "<float32: t0 = exp(x0); t1 = mul(t0, x1)>\n"
            "return (%3)\n");
}

// The mask of relu's gradient: the bool comparison and its cast run inside the program.
TEST(Fusion, BoolMasksFuseWithTheArithmetic) {
  GraphBuilder b;
  const NodeId grad = b.input({4, 3});
  const NodeId x = b.input({4, 3});
  const NodeId zero = b.constant(scalar(0));
  const NodeId mask = b.op(OpId::cast, {b.op(OpId::greater, {x, zero})}, dtype_attr(DType::f32));
  const Graph g = b.finish({b.op(OpId::mul, {grad, mask})});
  EXPECT_EQ(to_text(fuse_elementwise(g)),
            "%0: float32[4, 3] = placeholder() {index=0}\n"
            "%1: float32[4, 3] = placeholder() {index=1}\n"
            "%2: float32[] = constant() <0>\n"
            "%3: float32[4, 3] = fused_elementwise(%1, %2, %0) {dtype=float32} "
            "<float32: t0 = greater(x0, x1); t1 = cast[dtype=float32](t0); t2 = mul(x2, t1)>\n"
            "return (%3)\n");
}

TEST(Fusion, Float64ChainsFuseOtherDtypesAndMixedCastsDoNot) {
  GraphBuilder b;
  const NodeId d = b.input({5}, DType::f64);
  const NodeId i = b.input({5}, DType::i32);
  const NodeId narrowed = b.op(OpId::cast, {b.op(OpId::exp, {d})}, dtype_attr(DType::f32));
  const NodeId ints = b.op(OpId::square, {b.op(OpId::neg, {i})});
  const NodeId doubles = b.op(OpId::tanh, {b.op(OpId::sqrt, {d})});
  const Graph g = b.finish({b.op(OpId::relu, {narrowed}), ints, doubles});
  EXPECT_EQ(to_text(fuse_elementwise(g)),
            "%0: float64[5] = placeholder() {index=0}\n"
            "%1: int32[5] = placeholder() {index=1}\n"
            "%2: float64[5] = exp(%0)\n"
            "%3: float32[5] = cast(%2) {dtype=float32}\n"
            "%4: int32[5] = neg(%1)\n"
            "%5: int32[5] = square(%4)\n"
            "%6: float64[5] = fused_elementwise(%0) {dtype=float64} "
            "<float64: t0 = sqrt(x0); t1 = tanh(t0)>\n"
            "%7: float32[5] = relu(%3)\n"
            "return (%7, %5, %6)\n");
}

// ---- the kernel, through the executor ----

std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& inputs) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) metas.push_back(t.meta());
  Plan plan(std::make_shared<const Graph>(g), metas);
  return plan.run(inputs);
}

Tensor uniform(const Shape& shape, DType dtype = DType::f32) {
  static random::Generator gen(7);
  return random::uniform(shape, -2.0, 2.0, dtype, gen);
}

// Exact: the fused kernel applies the same functors in the same compute type.
void expect_same(const std::vector<Tensor>& fused, const std::vector<Tensor>& unfused) {
  ASSERT_EQ(fused.size(), unfused.size());
  for (size_t k = 0; k < fused.size(); ++k) {
    SCOPED_TRACE(k);
    ASSERT_EQ(fused[k].meta().shape, unfused[k].meta().shape);
    ASSERT_EQ(fused[k].dtype(), unfused[k].dtype());
    EXPECT_EQ(fused[k].to_vector<double>(), unfused[k].to_vector<double>());
  }
}

// Runs check() with the fused loops of every instruction set level this processor has.
template <typename Check>
void at_every_isa(Check check) {
  const cpu::CpuIsa saved = cpu::cpu_isa();
  for (cpu::CpuIsa isa : {cpu::CpuIsa::sse2, cpu::CpuIsa::avx2, cpu::CpuIsa::avx512}) {
    if (isa > cpu::detected_cpu_isa()) break;
    SCOPED_TRACE(cpu::cpu_isa_name(isa));
    cpu::set_cpu_isa(isa);
    check();
  }
  cpu::set_cpu_isa(saved);
}

// Enough elements to split across threads, in rows that do not align with the kernel's blocks;
// inputs of the output's shape, a bias row, a column, a bool mask and a scalar (read beside an
// array, where it stays one value, and by where, which needs it spread over a block). A bfloat16
// program computes in float and rounds every result as the separate ops do, so it too is exact.
TEST(FusedKernel, MatchesUnfusedOnEveryKindOfInput) {
  for (const DType dtype : {DType::f32, DType::bf16}) {
    SCOPED_TRACE(dtype_name(dtype));
    GraphBuilder b;
    const Shape shape{300, 257};
    const NodeId x = b.input(shape, dtype);
    const NodeId row = b.input({257}, dtype);
    const NodeId col = b.input({300, 1}, dtype);
    const NodeId half = b.constant(scalar(0.5, dtype));
    const NodeId mask = b.input(shape, DType::boolean);
    const NodeId t = b.op(OpId::add, {b.op(OpId::mul, {x, row}), col});
    const NodeId u = b.op(OpId::sub, {b.op(OpId::sigmoid, {t}), half});
    const NodeId v = b.op(OpId::where, {mask, u, half});
    const NodeId e = b.op(OpId::mul, {b.op(OpId::elu, {v}, {{"alpha", 0.5}}),
                                      b.op(OpId::exp, {b.op(OpId::neg, {x})})});
    const NodeId w = b.op(OpId::add, {e, b.op(OpId::tanh, {x})});
    const NodeId out = b.op(OpId::leaky_relu, {w}, {{"alpha", 0.2}});
    const NodeId flags = b.op(OpId::logical_and, {b.op(OpId::greater, {x, col}), mask});
    const NodeId relu_grad = b.op(
        OpId::mul, {out, b.op(OpId::cast, {b.op(OpId::greater, {x, half})}, dtype_attr(dtype))});
    const Graph g = b.finish({out, flags, relu_grad});
    const Graph fused = fuse_elementwise(g);
    ASSERT_EQ(fused.nodes.size(), 8u) << to_text(fused);  // 5 inputs, 3 fused nodes

    const std::vector<Tensor> inputs{uniform(shape, dtype), uniform({257}, dtype),
                                     uniform({300, 1}, dtype), ops::greater(uniform(shape), 0.0)};
    at_every_isa([&] { expect_same(run(fused, inputs), run(g, inputs)); });
  }
}

TEST(FusedKernel, Float64AndBoolOutputs) {
  GraphBuilder b;
  const NodeId x = b.input({1000}, DType::f64);
  const NodeId three = b.constant(scalar(3, DType::f64));
  const NodeId y = b.op(
      OpId::add,
      {b.op(OpId::mul, {b.op(OpId::sqrt, {b.op(OpId::abs, {x})}), three}), b.op(OpId::exp, {x})});
  const NodeId positive = b.op(OpId::logical_not, {b.op(OpId::less_equal, {x, three})});
  const Graph g = b.finish({y, positive});
  const Graph fused = fuse_elementwise(g);
  ASSERT_EQ(fused.nodes.size(), 4u) << to_text(fused);

  const std::vector<Tensor> inputs{uniform({1000}, DType::f64) * 4.0};
  at_every_isa([&] { expect_same(run(fused, inputs), run(g, inputs)); });
}

TEST(FusedKernel, InstructionSetLevelsAboveTheProcessorsAreRefused) {
  if (cpu::detected_cpu_isa() == cpu::CpuIsa::avx512) GTEST_SKIP() << "this processor has all";
  EXPECT_THROW(cpu::set_cpu_isa(cpu::CpuIsa::avx512), Error);
}

// The fused node writes over the matmul result it consumes, as its ops did one by one.
TEST(FusedKernel, RunsInPlaceOverADyingInput) {
  GraphBuilder b;
  const Attrs plain{{"transpose_a", false}, {"transpose_b", false}};
  const NodeId x = b.input({64, 64});
  const NodeId mm = b.op(OpId::matmul, {x, x}, plain);
  const NodeId y = b.op(OpId::tanh, {b.op(OpId::add, {mm, b.constant(scalar(1))})});
  const Graph g = b.finish({b.op(OpId::matmul, {y, x}, plain)});
  const auto fused = std::make_shared<const Graph>(fuse_elementwise(g));
  const Tensor input = uniform({64, 64});
  Plan plan(fused, std::vector{input.meta()});
  EXPECT_EQ(plan.stats().in_place_steps, 1);
  EXPECT_EQ(plan.stats().kernel_steps, 3);
  expect_same(plan.run(std::vector{input}), run(g, {input}));
}

// ---- traced functions ----

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

bool has_fused_node(const std::string& graph_text) {
  return graph_text.find("fused_elementwise") != std::string::npos;
}

// fn traced with fusion, traced without, and eager give the same values.
void expect_fusion_transparent(const Fn& fn, const std::vector<Tensor>& inputs) {
  auto fused = function([&](const std::vector<Tensor>& v) { return fn(v); });
  auto unfused =
      function([&](const std::vector<Tensor>& v) { return fn(v); }, {.passes = {.fusion = false}});
  const Tensor got = fused(inputs);
  expect_same({got}, {unfused(inputs)});
  expect_same({got}, {fn(inputs)});
  EXPECT_TRUE(has_fused_node(fused.graph_text())) << fused.graph_text();
  EXPECT_FALSE(has_fused_node(unfused.graph_text()));
}

TEST(FusedFunction, ChainsMatchUnfusedAndEager) {
  using namespace ops;
  const Tensor x = uniform({64, 33});
  const Tensor y = uniform({64, 33});
  const Tensor bias = uniform({33});
  expect_fusion_transparent([](const auto& v) { return relu(v[0] * v[1] + v[2]) + 0.5; },
                            {x, y, bias});
  expect_fusion_transparent(
      [](const auto& v) { return sigmoid(v[0]) * tanh(v[1]) + exp(v[0] * -0.5); }, {x, y});
  expect_fusion_transparent(
      [](const auto& v) { return gelu(v[0], true) / (softplus(v[1]) + 1.0) - v[2]; }, {x, y, bias});
}

TEST(FusedFunction, GradientsMatchEager) {
  using namespace ops;
  const Fn loss = [](const std::vector<Tensor>& v) {
    return sum(relu(v[0] * v[1] + v[2]) * tanh(v[0]) + sigmoid(v[0]) * 2.0);
  };
  const std::vector<Tensor> inputs{uniform({64, 33}), uniform({64, 33}), uniform({33})};
  auto traced = function([&](const std::vector<Tensor>& v) { return grad(loss, v); });
  const std::vector<Tensor> got = traced(inputs);
  EXPECT_TRUE(has_fused_node(traced.graph_text())) << traced.graph_text();
  expect_same(got, grad(loss, inputs));
}

}  // namespace
}  // namespace kiln::engine
