// Elementwise fusion: a connected group of elementwise nodes whose intermediate values nothing
// outside the group uses becomes one fused_elementwise node, whose kernel runs the whole group
// as one loop over the output instead of one pass over memory per op.
#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "kiln/engine/graph/op_traits.h"
#include "kiln/engine/passes/passes.h"
#include "kiln/framework/graph/fused_program.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {
namespace {

// The floating type a node computes in when it can join a fused program: its output and inputs
// are bool or one floating type the fused kernels compute in (bool alone gives DType::boolean,
// which fits any program). nullopt: the node cannot be fused.
std::optional<DType> compute_dtype_of(const Graph& g, const GraphNode& n) {
  // Programs do not nest, and a device without a fused kernel keeps its ops apart.
  if (!is_elementwise(n.op) || n.op == OpId::fused_elementwise) return std::nullopt;
  if (op_def(OpId::fused_elementwise).kernels[static_cast<size_t>(n.meta.device.type)] == nullptr)
    return std::nullopt;
  // The CPU's fused kernel also runs bfloat16 programs (in float, rounding each result as the
  // separate ops round); CUDA's generated kernels compute in float32 or float64 only.
  const bool cpu = n.meta.device.type == DeviceType::cpu;
  DType compute = DType::boolean;
  auto fits = [&](DType d) {
    if (d == DType::boolean) return true;
    if (d != DType::f32 && d != DType::f64 && !(d == DType::bf16 && cpu)) return false;
    if (compute == DType::boolean) compute = d;
    return d == compute;
  };
  if (!fits(n.meta.dtype)) return std::nullopt;
  for (const NodeId in : n.inputs)
    if (!fits(g.nodes[in].meta.dtype)) return std::nullopt;
  return compute;
}

// The fused node computing `members` (ascending ids, the root last) from their inputs outside
// the group.
GraphNode fused_node(const Graph& g, const std::vector<NodeId>& members, DType compute) {
  auto in_group = [&](NodeId id) { return std::binary_search(members.begin(), members.end(), id); };
  std::vector<NodeId> external;
  for (const NodeId m : members)
    for (const NodeId in : g.nodes[m].inputs)
      if (!in_group(in) && std::find(external.begin(), external.end(), in) == external.end())
        external.push_back(in);

  auto program = std::make_shared<FusedProgram>();
  program->num_inputs = static_cast<int>(external.size());
  program->compute_dtype = compute == DType::boolean ? DType::f32 : compute;
  auto reg = [&](NodeId id) {
    const auto e = std::find(external.begin(), external.end(), id);
    if (e != external.end()) return static_cast<int>(e - external.begin());
    return program->num_inputs +
           static_cast<int>(std::lower_bound(members.begin(), members.end(), id) - members.begin());
  };
  for (const NodeId m : members) {
    const GraphNode& n = g.nodes[m];
    FusedProgram::Instruction ins{n.op, n.attrs, {}};
    for (const NodeId in : n.inputs) ins.operands.push_back(reg(in));
    program->instructions.push_back(std::move(ins));
  }
  const GraphNode& root = g.nodes[members.back()];
  return GraphNode{OpId::fused_elementwise, Attrs{{attr::dtype, root.meta.dtype}},
                   std::move(external), root.meta, std::move(program)};
}

}  // namespace

Graph fuse_elementwise(const Graph& graph) {
  // Earlier passes leave the nodes they bypass for dead-code elimination; their uses would keep
  // values out of groups.
  Graph g = eliminate_dead_code(graph);
  const size_t n = g.nodes.size();
  NodeMap<std::vector<NodeId>> users(n);
  for (const NodeId id : g.nodes.ids())
    for (const NodeId in : g.nodes[id].inputs) users[in].push_back(id);
  NodeMap<bool> escapes(n, false);  // the caller sees the value
  for (const NodeId o : g.outputs) escapes[o] = true;
  for (const Assignment& a : g.assignments) escapes[a.value] = true;
  NodeMap<std::optional<DType>> compute(n);
  for (const NodeId id : g.nodes.ids()) compute[id] = compute_dtype_of(g, g.nodes[id]);

  // Groups grow from their root (the last node, the only one whose value leaves the group)
  // towards the inputs. A producer joins when every user is already in the group: users come
  // later in topological order, so taking candidates highest id first decides each one once.
  NodeMap<NodeId> group_of(n);  // the root's id
  NodeMap<bool> keep(n, true);
  for (size_t r = n; r-- > 0;) {
    const NodeId root(r);
    if (group_of[root].valid() || !compute[root]) continue;
    group_of[root] = root;
    DType group_dtype = *compute[root];
    auto joins = [&](NodeId p) {
      if (group_of[p].valid() || !compute[p] || escapes[p]) return false;
      // Same shape as the root: a smaller value broadcast into the chain (a per-row statistic)
      // would be recomputed for every output element. Equal unknown dims may still differ at
      // run time, which costs time but not correctness: elementwise ops commute with
      // broadcasting, so evaluating every op over the output's elements gives the same values.
      if (g.nodes[p].meta.shape != g.nodes[root].meta.shape) return false;
      if (*compute[p] != DType::boolean && group_dtype != DType::boolean &&
          *compute[p] != group_dtype)
        return false;
      return std::all_of(users[p].begin(), users[p].end(),
                         [&](NodeId u) { return group_of[u] == root; });
    };
    std::vector<NodeId> members{root};
    std::priority_queue<NodeId> candidates(g.nodes[root].inputs.begin(),
                                           g.nodes[root].inputs.end());
    while (!candidates.empty()) {
      const NodeId p = candidates.top();
      while (!candidates.empty() && candidates.top() == p) candidates.pop();
      if (!joins(p)) continue;
      group_of[p] = root;
      if (group_dtype == DType::boolean) group_dtype = *compute[p];
      members.push_back(p);
      for (const NodeId in : g.nodes[p].inputs) candidates.push(in);
    }
    if (members.size() < 2) continue;
    std::reverse(members.begin(), members.end());
    for (const NodeId m : members) keep[m] = m == root;
    g.nodes[root] = fused_node(g, members, group_dtype);
  }
  return compact(g, keep);
}

}  // namespace kiln::engine
