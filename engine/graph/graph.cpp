#include "kiln/engine/graph/graph.h"

#include <algorithm>
#include <sstream>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::engine {

std::string ConstantPayload::describe() const {
  if (value.numel() <= 4) {
    std::ostringstream out;
    out << '<';
    const std::vector<double> v = value.to_vector<double>();
    for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
    out << '>';
    return out.str();
  }
  return detail::concat('<', kiln::describe(value.meta()), '>');
}

const ConstantPayload& Graph::constant(NodeId id) const {
  return static_cast<const ConstantPayload&>(*nodes[id].payload);
}

bool Graph::is_constant_of(NodeId id, double value) const {
  if (node(id).op != OpId::constant) return false;
  const std::vector<double> values = constant(id).value.to_vector<double>();
  return std::all_of(values.begin(), values.end(), [value](double v) { return v == value; });
}

std::shared_ptr<VariableState> Graph::variable(NodeId id) const {
  // read_variable nodes hold the variable's own shared state as payload; the graph writes it
  // through assignments, so the const on the payload is dropped here on purpose.
  return std::static_pointer_cast<VariableState>(
      std::const_pointer_cast<NodePayload>(nodes[id].payload));
}

namespace {

std::string node_line(const Graph& g, NodeId id) {
  const GraphNode& n = g.nodes[id];
  std::ostringstream out;
  out << '%' << id << ": " << describe(n.meta) << " = " << op_def(n.op).name << '(';
  for (size_t k = 0; k < n.inputs.size(); ++k) out << (k ? ", " : "") << '%' << n.inputs[k];
  out << ')';
  if (!n.attrs.empty()) out << " {" << n.attrs.to_string() << '}';
  if (n.payload) out << ' ' << n.payload->describe();
  return out.str();
}

}  // namespace

std::string to_text(const Graph& g) {
  std::ostringstream out;
  for (const NodeId id : g.nodes.ids()) out << node_line(g, id) << '\n';
  for (const Assignment& a : g.assignments)
    out << "assign '" << a.variable->name << "' = %" << a.value << '\n';
  out << "return (";
  for (size_t k = 0; k < g.outputs.size(); ++k) out << (k ? ", " : "") << '%' << g.outputs[k];
  out << ")\n";
  return out.str();
}

namespace {

std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string to_dot(const Graph& g, const std::string& name) {
  std::ostringstream out;
  out << "digraph \"" << dot_escape(name) << "\" {\n  node [shape=box, fontname=monospace];\n";
  for (const NodeId id : g.nodes.ids()) {
    const GraphNode& n = g.nodes[id];
    std::ostringstream label;
    label << '%' << id << ' ' << op_def(n.op).name;
    if (!n.attrs.empty()) label << "\\n" << dot_escape(n.attrs.to_string());
    if (n.payload) label << "\\n" << dot_escape(n.payload->describe());
    label << "\\n" << dot_escape(describe(n.meta));
    const char* style = Graph::is_boundary(n.op) ? ", style=rounded" : "";
    out << "  n" << id << " [label=\"" << label.str() << "\"" << style << "];\n";
    for (const NodeId in : n.inputs) out << "  n" << in << " -> n" << id << ";\n";
  }
  for (size_t k = 0; k < g.outputs.size(); ++k)
    out << "  out" << k << " [label=\"output " << k << "\", shape=oval];\n  n" << g.outputs[k]
        << " -> out" << k << ";\n";
  for (size_t k = 0; k < g.assignments.size(); ++k)
    out << "  assign" << k << " [label=\"assign '" << dot_escape(g.assignments[k].variable->name)
        << "'\", shape=oval];\n  n" << g.assignments[k].value << " -> assign" << k << ";\n";
  out << "}\n";
  return out.str();
}

NodeMap<int> use_counts(const Graph& g) {
  NodeMap<int> uses(g.nodes.size(), 0);
  for (const GraphNode& n : g.nodes)
    for (const NodeId in : n.inputs) ++uses[in];
  for (const NodeId o : g.outputs) ++uses[o];
  for (const Assignment& a : g.assignments) ++uses[a.value];
  return uses;
}

Graph compact(const Graph& g, const NodeMap<bool>& keep) {
  NodeMap<NodeId> new_id(g.nodes.size());
  Graph out;
  out.num_inputs = g.num_inputs;
  for (const NodeId id : g.nodes.ids()) {
    if (!keep[id]) continue;
    GraphNode n = g.nodes[id];
    for (NodeId& in : n.inputs) {
      in = new_id[in];
      KILN_CHECK(in.valid(), "graph compaction dropped an input of %", id);
    }
    new_id[id] = out.nodes.push_back(std::move(n));
  }
  for (const NodeId o : g.outputs) out.outputs.push_back(new_id[o]);
  for (const Assignment& a : g.assignments)
    out.assignments.push_back({a.variable, new_id[a.value]});
  return out;
}

void replace_uses(Graph& g, const NodeMap<NodeId>& replacement) {
  auto resolve = [&](NodeId id) {
    while (replacement[id] != id) id = replacement[id];
    return id;
  };
  for (GraphNode& n : g.nodes)
    for (NodeId& in : n.inputs) in = resolve(in);
  for (NodeId& o : g.outputs) o = resolve(o);
  for (Assignment& a : g.assignments) a.value = resolve(a.value);
}

NodeMap<NodeId> identity_replacement(const Graph& g) {
  NodeMap<NodeId> replacement(g.nodes.size());
  for (const NodeId id : g.nodes.ids()) replacement[id] = id;
  return replacement;
}

}  // namespace kiln::engine
