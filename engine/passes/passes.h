#pragma once
// Graph-to-graph passes. Each is a pure function (graph in, graph out) with its own test that
// compares printed graphs before and after; PassOptions switches each off for debugging.
#include "kiln/engine/graph/graph.h"

namespace kiln::engine {

struct PassOptions {
  bool simplify = true;
  bool fold_constants = true;
  bool common_subexpressions = true;
  bool pooled_gradient_masks = true;
  bool pooled_gradient_sums = true;
  bool pool_argmax = true;
  bool bias_activation = true;
  bool record_gradient_slices = true;
  bool project_before_gather = true;
  bool fusion = true;
  bool dead_code = true;
  bool early_collectives = true;
};

// x*1, x+0, x-0, x/1, neg(neg(x)), identity(x) and same-dtype casts become x; chains of
// transposes or reshapes become one node.
Graph simplify(const Graph& graph);
// Nodes whose inputs are all constants become constants (small results only).
Graph fold_constants(const Graph& graph);
// Nodes equal to an earlier node (or equal small constants) are replaced by it.
Graph eliminate_common_subexpressions(const Graph& graph);
// mul(max_pool2d_grad(y, g), cast(greater(y, c))) (relu's backward after a max-pool) becomes
// max_pool2d_grad(y, mul(g, cast(greater(max_pool2d(y), c)))): the mask over the pooled tensor.
Graph mask_pooled_gradients(const Graph& graph);
// sum(max_pool2d_grad(y, g)) over the spatial axes becomes the same sum over g: each pooled
// gradient lands on one input position.
Graph sum_pooled_gradients(const Graph& graph);
// max_pool2d(x) with a max_pool2d_grad(x, g) becomes max_pool2d_with_argmax(x), and the gradient
// max_pool2d_grad_from_argmax(its argmax, g), on devices with their kernels.
Graph keep_pool_argmax(const Graph& graph);
// relu(add(conv2d(x, w), b)) and add(conv2d(x, w), b), b per output channel, become one
// conv2d_bias_activation node, and the same over a Dense layer's matmul(x, w) (untransposed, w of
// rank 2, b per output column) one matmul_bias_activation node, on devices with their kernels.
Graph fuse_bias_activation(const Graph& graph);
// rnn_sequence_grad(record, strided_slice_grad(g), ...) over a whole-batch, unit-stride slice
// becomes rnn_sequence_grad(record, g, ...) with the slice's bounds (attrs d_begin, d_end).
Graph fold_record_gradient_slices(const Graph& graph);
// matmul(gather(E, ids), W) becomes gather(matmul(E, W), ids) (a bias added after it moves onto
// the table too), and the gradients' GEMMs (and the bias's sum) over the ids' rows become
// table-sized ones over the ids' summed gradients, when the ids outnumber the table's rows or the
// table is small.
Graph project_before_gather(const Graph& graph);
// Connected elementwise nodes of one shape whose intermediate values only the group uses become
// one fused_elementwise node (float32/float64 arithmetic with bool masks); drops dead nodes.
Graph fuse_elementwise(const Graph& graph);
Graph eliminate_dead_code(const Graph& graph);
// Each all_reduce_start, with the nodes that only pack values for it (a gradient bucket's
// flattening, casting and concatenation), moves up to just after its inputs are ready; the
// gradient buckets' waits, and what reads them, move after every other node. The ranks
// communicate while the rest of backward runs.
Graph issue_collectives_early(const Graph& graph);

// The pipeline kiln::function runs on every new trace.
Graph optimize(Graph graph, const PassOptions& options);

}  // namespace kiln::engine
