// Moves a projection in front of the table lookup it follows. With E a [V, K] table and ids of
// any shape, matmul(gather(E, ids), W) is gather(matmul(E, W), ids): V rows are projected instead
// of one per id, so when a batch holds more ids than the table has rows (sequences of characters
// or tokens over a small vocabulary) the GEMM over every id becomes a table-sized one and the
// lookup copies projected rows. A bias added to the projection moves onto the table too.
//
// A training step's two gradient GEMMs over the ids' rows follow. With S = scatter_add(0, ids, G)
// the projection's gradient G summed per table row ([V, N]):
//   dW = gather(E, ids)^T G        becomes E^T S
//   dE = scatter_add(0, ids, G W^T) becomes S W^T
// and S is computed once for both; the bias's gradient, G summed over its rows, becomes S summed
// over its V rows. Values change only by the order of summation.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "kiln/engine/passes/graph_rewriter.h"
#include "kiln/engine/passes/passes.h"

namespace kiln::engine {
namespace {

// Below this many multiply-adds the table-sized GEMM costs little enough (tens of microseconds)
// to take even when a batch may hold fewer ids than the table has rows.
constexpr int64_t kSmallProjection = int64_t{1} << 22;

bool worth_projecting(int64_t rows, int64_t k, int64_t n, const Shape& ids) {
  int64_t least_ids = 1;  // unknown dims count as 1
  for (int64_t d : ids)
    if (d > 0) least_ids *= d;
  return rows <= least_ids || rows * k * n <= kSmallProjection;
}

// The last dim of a value of rank 2 or more, or -1 when unknown.
int64_t last_dim(const TensorMeta& m) {
  return m.shape.rank() >= 2 ? m.shape[m.shape.rank() - 1] : -1;
}

bool is_matmul(const GraphNode& n, bool transpose_a, bool transpose_b) {
  return n.op == OpId::matmul && n.attrs.get(attr::transpose_a) == transpose_a &&
         n.attrs.get(attr::transpose_b) == transpose_b;
}

// gather(E, ids) along axis 0 of a float32/float64 table with known dims [rows, width].
struct Lookup {
  NodeId table, ids;
  int64_t rows, width;
};

std::optional<Lookup> lookup(const Graph& g, NodeId id) {
  const GraphNode& n = g.node(id);
  if (n.op != OpId::gather || n.attrs.get(attr::axis) != 0) return std::nullopt;
  const TensorMeta& t = g.node(n.inputs[0]).meta;
  if (t.shape.rank() != 2 || !t.shape.is_fully_defined() ||
      (t.dtype != DType::f32 && t.dtype != DType::f64))
    return std::nullopt;
  return Lookup{n.inputs[0], n.inputs[1], t.shape[0], t.shape[1]};
}

// A broadcast of the constant 0: the base autodiff gives a lookup's gradient.
bool is_zeros(const Graph& g, NodeId id) {
  const GraphNode& n = g.node(id);
  if (n.op != OpId::broadcast_like && n.op != OpId::broadcast_to) return false;
  return g.is_constant_of(n.inputs[0], 0);
}

class Projector {
 public:
  explicit Projector(Graph g)
      : g_(std::move(g)), uses_(use_counts(g_)), shape_uses_(g_.nodes.size()), out_(g_) {
    for (const GraphNode& n : g_.nodes)
      if (n.op == OpId::reshape_like || n.op == OpId::broadcast_like) ++shape_uses_[n.inputs[1]];
  }

  Graph run() {
    for (const NodeId id : g_.nodes.ids()) {
      if (!projection(id) && !bias(id) && !weight_gradient(id) && !table_gradient(id) &&
          !bias_gradient(id))
        out_.copy(id);
    }
    return out_.finish();
  }

 private:
  // matmul(gather(E, ids), W) -> gather(matmul(E, W), ids)
  bool projection(NodeId id) {
    const GraphNode& n = g_.node(id);
    if (!is_matmul(n, false, false)) return false;
    const std::optional<Lookup> l = lookup(g_, n.inputs[0]);
    const TensorMeta& w = g_.node(n.inputs[1]).meta;
    if (!l || w.shape.rank() != 2 || last_dim(w) < 0 ||
        !worth_projecting(l->rows, l->width, last_dim(w), g_.node(l->ids).meta.shape))
      return false;
    const NodeId table =
        out_.emit(OpId::matmul, {out_.mapped(l->table), out_.mapped(n.inputs[1])}, n.attrs);
    looked_up(id, table, out_.mapped(l->ids));
    return true;
  }

  // add(gather(P, ids), b), b one value per column and the lookup's value used only here ->
  // gather(add(P, b), ids)
  bool bias(NodeId id) {
    const GraphNode& n = g_.node(id);
    if (n.op != OpId::add) return false;
    for (size_t side = 0; side < 2; ++side) {
      const NodeId looked = n.inputs[side];
      const auto found = projected_.find(looked);
      const TensorMeta& b = g_.node(n.inputs[1 - side]).meta;
      if (found == projected_.end() || uses_[looked] - shape_uses_[looked] != 1) continue;
      const auto [table, ids] = found->second;
      if (b.shape != Shape({out_.node(table).meta.shape[1]}) || b.dtype != n.meta.dtype) continue;
      looked_up(id, out_.emit(OpId::add, {table, out_.mapped(n.inputs[1 - side])}), ids);
      // The gradient's reshape_like nodes read only the lookup's shape, which the sum shares.
      out_.define(looked, out_.mapped(id));
      return true;
    }
    return false;
  }

  // matmul(reshape(gather(E, ids), [-1, K]), G, transpose_a) -> matmul(E, S, transpose_a)
  bool weight_gradient(NodeId id) {
    const GraphNode& n = g_.node(id);
    if (!is_matmul(n, true, false)) return false;
    const GraphNode& rows = g_.node(n.inputs[0]);
    if (rows.op != OpId::reshape || rows.meta.shape.rank() != 2) return false;
    const std::optional<Lookup> l = lookup(g_, rows.inputs[0]);
    const TensorMeta& gradient_rows = g_.node(n.inputs[1]).meta;
    const int64_t width = last_dim(gradient_rows);
    if (!l || gradient_rows.shape.rank() != 2 || last_dim(rows.meta) != l->width || width < 0 ||
        !worth_projecting(l->rows, l->width, width, g_.node(l->ids).meta.shape))
      return false;
    const NodeId sums = segment_sums(l->ids, n.inputs[1], l->rows, width);
    out_.define(id, out_.emit(OpId::matmul, {out_.mapped(l->table), sums}, n.attrs));
    return true;
  }

  // scatter_add(0, ids, matmul(G, W, transpose_b)) -> matmul(S, W, transpose_b), possibly through
  // a reshape_like between them
  bool table_gradient(NodeId id) {
    const GraphNode& n = g_.node(id);
    if (n.op != OpId::scatter_add || n.attrs.get(attr::axis) != 0 || !is_zeros(g_, n.inputs[0]))
      return false;
    NodeId product = n.inputs[2];
    if (g_.node(product).op == OpId::reshape_like) {
      if (uses_[product] != 1) return false;
      product = g_.node(product).inputs[0];
    }
    const GraphNode& p = g_.node(product);
    const TensorMeta& base = n.meta;
    if (!is_matmul(p, false, true) || uses_[product] != 1 || base.shape.rank() != 2 ||
        !base.shape.is_fully_defined())
      return false;
    const TensorMeta& w = g_.node(p.inputs[1]).meta;
    const int64_t width = last_dim(w);
    if (w.shape.rank() != 2 || width < 0 || last_dim(g_.node(p.inputs[0]).meta) != width ||
        !worth_projecting(base.shape[0], base.shape[1], width, g_.node(n.inputs[1]).meta.shape))
      return false;
    const NodeId sums = segment_sums(n.inputs[1], p.inputs[0], base.shape[0], width);
    out_.define(id, out_.emit(OpId::matmul, {sums, out_.mapped(p.inputs[1])}, p.attrs));
    return true;
  }

  // sum(G, every axis but the last) -> sum(S, axis 0), once S exists for a view of G: the bias's
  // gradient, reading V rows instead of one per id.
  bool bias_gradient(NodeId id) {
    const GraphNode& n = g_.node(id);
    if (n.op != OpId::reduce_sum) return false;
    const TensorMeta& x = g_.node(n.inputs[0]).meta;
    const auto found = sums_of_.find(storage_root(n.inputs[0]));
    std::vector<int64_t> leading(static_cast<size_t>(std::max(x.shape.rank() - 1, 0)));
    for (size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<int64_t>(i);
    if (found == sums_of_.end() || leading.empty() || n.attrs.get(attr::axes) != leading ||
        last_dim(x) != found->second.second || !n.meta.shape.is_fully_defined())
      return false;
    const NodeId total =
        out_.emit(OpId::reduce_sum, {found->second.first},
                  {{attr::axes, std::vector<int64_t>{0}}, {attr::keepdims, false}});
    out_.define(id, out_.emit(OpId::reshape, {total}, {{attr::shape, n.meta.shape.dims()}}));
    return true;
  }

  // The value whose data `id` views through reshapes: flattening either to rows gives the same.
  NodeId storage_root(NodeId id) const {
    while (g_.node(id).op == OpId::reshape || g_.node(id).op == OpId::reshape_like)
      id = g_.node(id).inputs[0];
    return id;
  }

  // Old node id's value is now gather(table, ids) (new ids).
  void looked_up(NodeId id, NodeId table, NodeId ids) {
    out_.define(id, out_.emit(OpId::gather, {table, ids}, {{attr::axis, int64_t{0}}}));
    projected_[id] = {table, ids};
  }

  // S = scatter_add(zeros [rows, width], ids flattened, gradient as [-1, width]), once per ids,
  // rows, width and data: views of one value flatten to the same rows.
  NodeId segment_sums(NodeId ids, NodeId gradient, int64_t rows, int64_t width) {
    const NodeId root = storage_root(gradient);
    const auto key = std::make_tuple(ids, root, rows, width);
    if (const auto found = sums_.find(key); found != sums_.end()) return found->second;
    const TensorMeta& g = g_.node(gradient).meta;
    const NodeId zero = out_.emit_constant(scalar(0, g.dtype, g.device));
    const NodeId base =
        out_.emit(OpId::broadcast_to, {zero}, {{attr::shape, std::vector<int64_t>{rows, width}}});
    const NodeId flat_ids =
        out_.emit(OpId::reshape, {out_.mapped(ids)}, {{attr::shape, std::vector<int64_t>{-1}}});
    const NodeId flat_gradient = out_.emit(OpId::reshape, {out_.mapped(gradient)},
                                           {{attr::shape, std::vector<int64_t>{-1, width}}});
    const NodeId sums =
        out_.emit(OpId::scatter_add, {base, flat_ids, flat_gradient}, {{attr::axis, int64_t{0}}});
    sums_[key] = sums;
    sums_of_.try_emplace(root, sums, width);
    return sums;
  }

  const Graph g_;
  const NodeMap<int> uses_;
  NodeMap<int> shape_uses_;  // uses as the shape of reshape_like or broadcast_like
  GraphRewriter out_;
  std::map<NodeId, std::pair<NodeId, NodeId>> projected_;  // old id -> its new (table, ids)
  std::map<std::tuple<NodeId, NodeId, int64_t, int64_t>, NodeId> sums_;
  std::map<NodeId, std::pair<NodeId, int64_t>> sums_of_;  // root -> its first S and S's width
};

}  // namespace

Graph project_before_gather(const Graph& graph) {
  // Nodes that earlier passes bypassed would still count as uses.
  return Projector(eliminate_dead_code(graph)).run();
}

}  // namespace kiln::engine
