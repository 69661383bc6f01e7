#include "kiln/training/tensorboard/graph_def.h"

#include <graph.pb.h>

#include <set>

#include "kiln/engine/graph/graph.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::tensorboard {
namespace {

proto::DataType data_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return proto::DT_FLOAT;
    case DType::f64:
      return proto::DT_DOUBLE;
    case DType::f16:
      return proto::DT_HALF;
    case DType::bf16:
      return proto::DT_BFLOAT16;
    case DType::i32:
      return proto::DT_INT32;
    case DType::i64:
      return proto::DT_INT64;
    case DType::u8:
      return proto::DT_UINT8;
    case DType::boolean:
      return proto::DT_BOOL;
    case DType::string:
      return proto::DT_STRING;
  }
  return proto::DT_INVALID;
}

// Unique node names: a second use of a name gets "_<n>".
class Names {
 public:
  std::string take(const std::string& wanted) {
    std::string name = wanted;
    for (int n = 1; !taken_.insert(name).second; ++n) name = wanted + "_" + std::to_string(n);
    return name;
  }

 private:
  std::set<std::string> taken_;
};

std::string wanted_name(const engine::Graph& graph, engine::NodeId id) {
  const engine::GraphNode& node = graph.node(id);
  if (node.op == OpId::read_variable) return graph.variable(id)->name;
  if (node.op == OpId::placeholder) return "input_" + std::to_string(node.attrs.get_int("index"));
  return std::string(op_def(node.op).name) + "_" + std::to_string(id.value());
}

}  // namespace

std::string graph_def(const engine::Graph& graph) {
  proto::GraphDef def;
  Names names;
  engine::NodeMap<std::string> name_of(graph.nodes.size());
  for (const engine::NodeId id : graph.nodes.ids()) {
    const engine::GraphNode& node = graph.node(id);
    proto::NodeDef* n = def.add_node();
    name_of[id] = names.take(wanted_name(graph, id));
    n->set_name(name_of[id]);
    n->set_op(op_def(node.op).name);
    for (const engine::NodeId input : node.inputs) n->add_input(name_of[input]);
    auto& attrs = *n->mutable_attr();
    attrs["T"].set_type(data_type(node.meta.dtype));
    proto::TensorShapeProto* shape = attrs["_output_shapes"].mutable_list()->add_shape();
    for (const int64_t d : node.meta.shape) shape->add_dim()->set_size(d);
    if (const std::string text = node.attrs.to_string(); !text.empty())
      attrs["kiln_attrs"].set_s(text);
  }
  for (const engine::Assignment& a : graph.assignments) {
    proto::NodeDef* n = def.add_node();
    n->set_name(names.take("assign/" + a.variable->name));
    n->set_op("assign");
    n->add_input(name_of[a.value]);
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    proto::NodeDef* n = def.add_node();
    n->set_name(names.take("output_" + std::to_string(k)));
    n->set_op("output");
    n->add_input(name_of[graph.outputs[k]]);
  }
  def.mutable_versions()->set_producer(1);
  return def.SerializeAsString();
}

}  // namespace kiln::tensorboard
