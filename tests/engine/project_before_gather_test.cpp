// The pass that projects a lookup table before the lookup: the rewritten graph, the tables it
// leaves alone, and a traced training step (lookup, projection, bias) equal to the eager one.
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

namespace kiln::engine {
namespace {

using testing::GraphBuilder;
using testing::id_of_first;

const Attrs kPlain{{"transpose_a", false}, {"transpose_b", false}};
const Attrs kAxis0{{"axis", int64_t{0}}};

std::string after(const Graph& g) {
  return to_text(eliminate_dead_code(project_before_gather(g)));
}

TEST(ProjectBeforeGather, ProjectsTheTableAndAddsTheBiasToIt) {
  GraphBuilder b;
  const NodeId ids = b.input({-1, -1}, DType::i32);
  const NodeId table = b.input({10, 4});
  const NodeId w = b.input({4, 6});
  const NodeId bias = b.input({6});
  const NodeId projected =
      b.op(OpId::matmul, {b.op(OpId::gather, {table, ids}, kAxis0), w}, kPlain);
  const Graph graph = b.finish({b.op(OpId::add, {projected, bias})});
  EXPECT_EQ(after(graph),
            "%0: int32[?, ?] = placeholder() {index=0}\n"
            "%1: float32[10, 4] = placeholder() {index=1}\n"
            "%2: float32[4, 6] = placeholder() {index=2}\n"
            "%3: float32[6] = placeholder() {index=3}\n"
            "%4: float32[10, 6] = matmul(%1, %2) {transpose_a=false, transpose_b=false}\n"
            "%5: float32[10, 6] = add(%4, %3)\n"
            "%6: float32[?, ?, 6] = gather(%5, %0) {axis=0}\n"
            "return (%6)\n");
}

// A table too large to project for a batch of unknown size stays behind its lookup; a batch known
// to hold more ids than the table has rows projects it.
TEST(ProjectBeforeGather, ProjectsLargeTablesOnlyForBatchesOfMoreIds) {
  for (const int64_t batch : {int64_t{-1}, int64_t{2048}}) {
    GraphBuilder b;
    const NodeId ids = b.input({batch, 4}, DType::i32);
    const NodeId table = b.input({8000, 64});
    const NodeId w = b.input({64, 32});
    const Graph graph =
        b.finish({b.op(OpId::matmul, {b.op(OpId::gather, {table, ids}, kAxis0), w}, kPlain)});
    const bool projected = after(graph).find("float32[8000, 32] = matmul") != std::string::npos;
    EXPECT_EQ(projected, batch > 0) << after(graph);
  }
}

// Lookups along another axis and products with a transposed right operand are left as they are.
TEST(ProjectBeforeGather, LeavesOtherLookupsAlone) {
  GraphBuilder b;
  const NodeId ids = b.input({5}, DType::i32);
  const NodeId table = b.input({10, 4});
  const NodeId w = b.input({4, 6});
  const NodeId right = b.input({5, 6});
  const Attrs transposed{{"transpose_a", false}, {"transpose_b", true}};
  const NodeId columns = b.op(OpId::gather, {table, ids}, {{"axis", int64_t{1}}});
  const Graph graph =
      b.finish({b.op(OpId::matmul, {columns, right}, kPlain),
                b.op(OpId::matmul, {b.op(OpId::gather, {table, ids}, kAxis0), table}, transposed),
                b.op(OpId::matmul, {b.op(OpId::gather, {table, ids}, kAxis0), w}, kPlain)});
  const std::string text = after(graph);
  EXPECT_NE(text.find("float32[10, 6] = matmul(%4, %3)"), std::string::npos) << text;
  EXPECT_NE(text.find("float32[5, 10] = matmul(%6, %1)"), std::string::npos) << text;
  // Only the last product moves.
  EXPECT_NE(text.find("float32[10, 6] = matmul(%1, %2)"), std::string::npos) << text;
}

// Repeated ids, a bias, and every gradient: the table's, the projection's and the bias's come
// from one per-row sum of the projection's gradient. Values match the eager step to rounding.
TEST(ProjectBeforeGather, TracedTrainingStepMatchesEager) {
  random::Generator gen(11);
  const Tensor ids = from_vector(std::vector<int32_t>{3, 1, 3, 0, 6, 6, 6, 2, 1, 5, 3, 3}, {3, 4});
  const Tensor table = random::uniform({7, 5}, -1, 1, DType::f32, gen);
  const Tensor w = random::uniform({5, 8}, -1, 1, DType::f32, gen);
  const Tensor bias = random::uniform({8}, -1, 1, DType::f32, gen);
  const Tensor weights = random::uniform({3, 4, 8}, -1, 1, DType::f32, gen);
  const auto loss = [&](const std::vector<Tensor>& v) {
    const Tensor h = ops::tanh(ops::matmul(ops::gather(v[0], ids, 0), v[1]) + v[2]);
    return ops::sum(h * weights);
  };
  const auto step = [&](const std::vector<Tensor>& v) {
    std::vector<Tensor> out = grad(loss, v);
    out.push_back(loss(v));
    return out;
  };
  const std::vector<Tensor> inputs{table, w, bias};
  auto traced = function(step);
  const std::vector<Tensor> got = traced(inputs), want = step(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    const std::vector<float> g = got[k].to_vector<float>(), e = want[k].to_vector<float>();
    ASSERT_EQ(g.size(), e.size());
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(g[i], e[i], 1e-5 * (1 + std::abs(e[i]))) << "output " << k << " at " << i;
  }
  const std::string text = traced.graph_text();
  // The bias moved onto the table's projection (where the bias pass folds it into the product).
  EXPECT_NE(text.find("float32[7, 8] = matmul_bias_activation"), std::string::npos) << text;
  // One sum of the gradient per table row, read by both gradient products.
  EXPECT_EQ(text.find("scatter_add"), text.rfind("scatter_add")) << text;
  EXPECT_NE(text.find("float32[7, 8] = scatter_add"), std::string::npos) << text;
  EXPECT_EQ(text.find("float32[3, 4, 5]"), std::string::npos) << text;
  // The bias's gradient sums the table's rows.
  EXPECT_NE(text.find("float32[8] = sum(" + id_of_first(text, "scatter_add") + ")"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kiln::engine
