// Sums a max-pool gradient before it is spread over the pool's input. max_pool2d_grad(y, g) puts
// each pooled gradient on exactly one input position (its window's argmax) and zeros elsewhere,
// so a sum over the spatial axes of it (a convolution's bias gradient before a max-pool) equals
// the same sum over g, a window's size smaller. Values change by the order of summation only.
#include <algorithm>

#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

bool sums_space(const GraphNode& sum) {
  const std::vector<int64_t>& axes = sum.attrs.get(attr::axes);
  const auto has = [&](int64_t axis) {
    return std::find(axes.begin(), axes.end(), axis) != axes.end();
  };
  return has(1) && has(2);  // NHWC: the rows and columns
}

}  // namespace

Graph sum_pooled_gradients(const Graph& graph) {
  Graph out = graph;
  for (GraphNode& n : out.nodes) {
    if (n.op != OpId::reduce_sum || !sums_space(n)) continue;
    const GraphNode& spread = out.node(n.inputs[0]);
    if (spread.op == OpId::max_pool2d_grad) n.inputs[0] = spread.inputs[1];
  }
  return out;
}

}  // namespace kiln::engine
