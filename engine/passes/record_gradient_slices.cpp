// rnn_sequence_grad reads the gradient of its whole record ([batch, time + 1, record width]), but
// layers return a slice of the record (the last h, or every step's h), so autodiff hands it
// strided_slice_grad(g): zeros written in full (39 MB for a [64, 201, 768] LSTM record) around
// the slice's gradient, for the kernel to read back. This pass gives the kernel g and the slice's
// bounds (attrs d_begin, d_end: rows and columns) instead.
#include <optional>
#include <utility>
#include <vector>

#include "kiln/engine/passes/passes.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln::engine {
namespace {

// The [rows, columns] bounds of a strided_slice_grad over a whole batch with unit strides whose
// columns lie within the record; empty when the slice is anything else.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> record_slice(
    const GraphNode& slice, int64_t record_width) {
  const auto& begin = slice.attrs.get(attr::begin);
  const auto& end = slice.attrs.get(attr::end);
  const auto& strides = slice.attrs.get(attr::strides);
  if (begin.size() != 3 || strides != std::vector<int64_t>{1, 1, 1}) return std::nullopt;
  if (begin[0] != 0 || end[0] != kSliceEnd || record_width < 0) return std::nullopt;
  const int64_t column_end = end[2] == kSliceEnd ? record_width : end[2];
  if (begin[2] < 0 || column_end > record_width || begin[2] >= column_end) return std::nullopt;
  return std::make_pair(std::vector<int64_t>{begin[1], begin[2]},
                        std::vector<int64_t>{end[1], column_end});
}

}  // namespace

Graph fold_record_gradient_slices(const Graph& graph) {
  // Nodes that earlier passes bypassed would still count as uses.
  Graph g = eliminate_dead_code(graph);
  const NodeMap<int> uses = use_counts(g);
  for (GraphNode& n : g.nodes) {
    if (n.op != OpId::rnn_sequence_grad || n.attrs.has(attr::d_begin)) continue;
    const NodeId d = n.inputs[1];
    const GraphNode& slice = g.node(d);
    const TensorMeta& record = g.node(n.inputs[0]).meta;
    if (slice.op != OpId::strided_slice_grad || uses[d] != 1 || slice.meta != record) continue;
    const auto bounds = record_slice(slice, record.shape[2]);
    if (!bounds) continue;
    n.inputs[1] = slice.inputs[0];
    n.attrs.set(attr::d_begin, bounds->first);
    n.attrs.set(attr::d_end, bounds->second);
  }
  return g;
}

}  // namespace kiln::engine
