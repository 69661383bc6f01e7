// Model::get_config and Model::from_config: a functional model's config in Keras 3's format
// (keras.Model.get_config / model.to_json of a Functional model), and the registration that lets
// configs name models ("Functional", "Model", "Sequential") wherever they name layers.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/functional_graph.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

using layers::CallRecord;
using layers::KerasTensor;
using layers::LayerPtr;

// Keras numbers a nested functional model's nodes from 1 in input_layers and output_layers (in
// Keras 2 building one made a node of its own) but from 0 in inbound_nodes; from_config takes
// the same offset back off.
size_t io_node_offset(const layers::Layer& layer) {
  return layer.class_name() == "Functional" ? 1 : 0;
}

Config history(const std::string& layer, size_t node_index, size_t tensor_index) {
  return Config(Config::List{Config(layer), Config(static_cast<int64_t>(node_index)),
                             Config(static_cast<int64_t>(tensor_index))});
}

// {"class_name": "__keras_tensor__", "config": {"shape", "dtype", "keras_history"}}.
Config keras_tensor_config(const FunctionalGraph& graph, const KerasTensor& t) {
  const CallRecord& producer = *t.record();
  return Config::map()
      .set("class_name", "__keras_tensor__")
      .set("config", Config::map()
                         .set("shape", layers::serialize_shape(t.shape()))
                         .set("dtype", std::string(dtype_name(t.dtype())))
                         .set("keras_history", history(producer.layer->name(),
                                                       graph.node_index(producer), t.index())));
}

// Layers whose Keras call takes its tensors as separate arguments (query, value, key) instead of
// one list.
bool takes_positional_tensors(const layers::Layer& layer) {
  return layer.class_name() == "MultiHeadAttention";
}

// One call: {"args": [x]} for one input, {"args": [[x, y]]} for several (Keras passes a list as
// the single argument of a multi-input layer), {"args": [q, v]} for attention.
Config node_config(const FunctionalGraph& graph, const CallRecord& record) {
  Config tensors = Config::list();
  for (const KerasTensor& t : record.inputs) tensors.push_back(keras_tensor_config(graph, t));
  Config args = record.inputs.size() == 1 || takes_positional_tensors(*record.layer)
                    ? std::move(tensors)
                    : Config(Config::List{tensors});
  return Config::map().set("args", std::move(args)).set("kwargs", Config::map());
}

// input_layers / output_layers: one [name, node, tensor] for a single tensor, else a list.
Config io_config(const FunctionalGraph& graph, const std::vector<KerasTensor>& tensors) {
  Config list = Config::list();
  for (const KerasTensor& t : tensors) {
    const CallRecord& producer = *t.record();
    list.push_back(history(producer.layer->name(),
                           graph.node_index(producer) + io_node_offset(*producer.layer),
                           t.index()));
  }
  return tensors.size() == 1 ? list.at(0) : list;
}

bool is_history(const Config& c) {
  return c.is_list() && c.size() == 3 && c.at(0).is_string();
}

bool is_keras_tensor(const Config& c) {
  return c.is_map() && c.get_string("class_name", "") == "__keras_tensor__";
}

// Rebuilds the layer calls a config lists, as Keras's functional_from_config does: every layer
// first, then each layer's inbound nodes in order, a node waiting until the nodes it reads have
// been called (a shared layer may be called at different depths of the graph).
class GraphRebuilder {
 public:
  GraphRebuilder(const Config& layer_list, const std::string& model_name)
      : model_name_(model_name) {
    for (const Config& entry : layer_list.as_list()) add_layer(entry);
    call_layers();
  }

  // The tensors of input_layers or output_layers (`key`): one reference or a list of them.
  std::vector<KerasTensor> io_tensors(const Config& refs, const std::string& key) const {
    std::vector<KerasTensor> out;
    for (const Config& ref : is_history(refs) ? Config::List{refs} : refs.as_list()) {
      const size_t node = static_cast<size_t>(node_of(ref, key));
      const size_t offset = io_node_offset(*entries_.at(ref.at(0).as_string()).layer);
      KerasTensor t;
      if (node >= offset) t = find(ref, node - offset, key);
      KILN_CHECK(t.defined(), "model '", model_name_, "': ", key, " refers to call ", node,
                 " of layer '", ref.at(0).as_string(), "', which the config does not make");
      out.push_back(t);
    }
    return out;
  }

 private:
  struct Entry {
    LayerPtr layer;
    const Config* inbound_nodes;
    size_t next_node = 0;
  };

  void add_layer(const Config& entry) {
    const std::string& name = entry["name"].as_string();
    KILN_CHECK(!entries_.contains(name) && !mask_ops_.contains(name), "model '", model_name_,
               "': two layers named '", name, "' in the config");
    if (is_mask_op(entry)) {
      mask_ops_[name] = tensor_sources(entry["inbound_nodes"]);
      return;
    }
    const std::string& class_name = entry["class_name"].as_string();
    const Config* config = entry.find("config");
    if (class_name == "Masking" ||
        (class_name == "Embedding" && config != nullptr && config->get_bool("mask_zero", false)))
      for (const std::string& source : tensor_sources(entry["inbound_nodes"]))
        masked_inputs_.insert(source);
    LayerPtr layer;
    try {
      layer = layers::deserialize_layer(entry);
    } catch (const Error& e) {
      throw Error("model '" + model_name_ + "', layer '" + name + "': " + e.what());
    }
    if (auto input = std::dynamic_pointer_cast<layers::InputLayer>(layer))
      outputs_[name].push_back({layers::symbolic_input(std::move(input))});
    order_.push_back(name);
    entries_.emplace(name, Entry{std::move(layer), &entry["inbound_nodes"]});
  }

  // Calls each layer on its nodes' inputs until every node is called or none can be.
  void call_layers() {
    for (bool progress = true; progress;) {
      progress = false;
      for (const std::string& name : order_) {
        Entry& entry = entries_.at(name);
        while (entry.next_node < entry.inbound_nodes->size()) {
          std::optional<std::vector<KerasTensor>> inputs =
              node_inputs(entry.inbound_nodes->at(entry.next_node), "layer '" + name + "'");
          if (!inputs) break;
          outputs_[name].push_back((*entry.layer)(*inputs));
          ++entry.next_node;
          progress = true;
        }
      }
    }
    for (const std::string& name : order_) {
      const Entry& entry = entries_.at(name);
      KILN_CHECK(entry.next_node == entry.inbound_nodes->size(), "model '", model_name_, "': call ",
                 entry.next_node, " of layer '", name,
                 "' reads a layer call the config never makes (a loop, or a wrong node index): ",
                 entry.inbound_nodes->at(entry.next_node).to_json());
    }
  }

  // The tensors a node passes to its layer, or nothing while one of them is not computed yet.
  std::optional<std::vector<KerasTensor>> node_inputs(const Config& node,
                                                      const std::string& reader) const {
    KILN_CHECK(node.is_map(), "model '", model_name_, "': ", reader,
               ": an inbound node must be {\"args\": [...], \"kwargs\": {...}} (Keras 3's "
               "format), got ",
               node.to_json());
    for (const auto& [key, value] : node["kwargs"].as_map()) {
      if (value.is_null() || ignored_argument(key, value)) continue;
      throw Error(detail::concat("model '", model_name_, "': ", reader, ": call argument '", key,
                                 "' is not supported by kiln (got ", value.to_json(), ")"));
    }
    std::vector<KerasTensor> inputs;
    // A multi-input layer takes its tensors as one list argument.
    for (const Config& arg : node["args"].as_list()) {
      for (const Config& t : arg.is_list() ? arg.as_list() : Config::List{arg}) {
        KILN_CHECK(is_keras_tensor(t), "model '", model_name_, "': ", reader,
                   ": kiln layers take only tensors as call arguments, got ", t.to_json());
        const Config& ref = t["config"]["keras_history"];
        KILN_CHECK(!is_history(ref) || !mask_ops_.contains(ref.at(0).as_string()), "model '",
                   model_name_, "': ", reader, " takes the output of Keras op '",
                   ref.at(0).as_string(), "' as data; kiln rebuilds op nodes only as masks");
        const KerasTensor input = find(ref, static_cast<size_t>(node_of(ref, reader)), reader);
        if (!input.defined()) return std::nullopt;
        inputs.push_back(input);
      }
    }
    return inputs;
  }

  // The node index of a [layer name, node index, tensor index] reference to a known layer.
  int64_t node_of(const Config& ref, const std::string& reader) const {
    KILN_CHECK(is_history(ref), "model '", model_name_, "': ", reader,
               ": a tensor reference must be [layer name, node index, tensor index], got ",
               ref.to_json());
    const std::string& name = ref.at(0).as_string();
    if (!entries_.contains(name)) {
      const std::string hint = did_you_mean(name, order_);
      throw Error("model '" + model_name_ + "': " + reader + " refers to unknown layer '" + name +
                  "'" + (hint.empty() ? "" : " (" + hint + ")"));
    }
    const int64_t node = ref.at(1).as_int();
    KILN_CHECK(node >= 0, "model '", model_name_, "': ", reader, ": negative node index in ",
               ref.to_json());
    return node;
  }

  // Output ref[2] of call `node` of layer ref[0]: undefined while that call is not made.
  KerasTensor find(const Config& ref, size_t node, const std::string& reader) const {
    const std::string& name = ref.at(0).as_string();
    const auto it = outputs_.find(name);
    if (it == outputs_.end() || node >= it->second.size()) return {};
    const std::vector<KerasTensor>& outs = it->second[node];
    const auto index = static_cast<size_t>(ref.at(2).as_int());
    KILN_CHECK(index < outs.size(), "model '", model_name_, "': ", reader, " reads output ", index,
               " of layer '", name, "', which has ", outs.size());
    return outs[index];
  }

  // Keras records the mask a layer computes symbolically (Embedding's not_equal(ids, 0),
  // Masking's any(not_equal(x, value))) as op nodes whose output it passes on as a `mask=`
  // argument. kiln's layers compute and pass the same masks themselves (compute_mask), so those
  // nodes and arguments are skipped.
  static bool is_mask_op(const Config& entry) {
    return entry.get_string("module", "").starts_with("keras.src.ops.");
  }

  // The layers whose outputs the calls of `inbound_nodes` read.
  static std::set<std::string> tensor_sources(const Config& inbound_nodes) {
    std::set<std::string> out;
    if (!inbound_nodes.is_list()) return out;
    for (const Config& node : inbound_nodes.as_list()) {
      if (!node.is_map() || !node.contains("args")) continue;
      for (const Config& arg : node["args"].as_list())
        for (const Config& t : arg.is_list() ? arg.as_list() : Config::List{arg})
          if (is_keras_tensor(t) && is_history(t["config"]["keras_history"]))
            out.insert(t["config"]["keras_history"].at(0).as_string());
    }
    return out;
  }

  // Whether the op node `op` computes a mask kiln's layers compute too: its chain of op nodes
  // reads a tensor that an Embedding(mask_zero) or a Masking layer takes.
  bool kiln_computes_mask(const std::string& op) const {
    std::vector<std::string> pending{op};
    std::set<std::string> seen;
    while (!pending.empty()) {
      const std::string name = pending.back();
      pending.pop_back();
      if (!seen.insert(name).second) continue;
      const auto it = mask_ops_.find(name);
      if (it == mask_ops_.end()) {
        if (masked_inputs_.contains(name)) return true;
        continue;
      }
      pending.insert(pending.end(), it->second.begin(), it->second.end());
    }
    return false;
  }

  // A call argument kiln's layers take implicitly: a mask that Keras's op nodes compute as an
  // Embedding or Masking layer does, and the training flag (the step's own decides, as in a
  // Keras functional call).
  bool ignored_argument(const std::string& key, const Config& value) const {
    if (key == "training") return value.is_bool();
    if (key != "mask" || !is_keras_tensor(value)) return false;
    const Config& ref = value["config"]["keras_history"];
    return is_history(ref) && mask_ops_.contains(ref.at(0).as_string()) &&
           kiln_computes_mask(ref.at(0).as_string());
  }

  std::string model_name_;
  // Keras op nodes skipped, with the layers (or op nodes) whose outputs each reads.
  std::map<std::string, std::set<std::string>> mask_ops_;
  // The layers whose outputs an Embedding(mask_zero) or Masking layer reads.
  std::set<std::string> masked_inputs_;
  std::vector<std::string> order_;
  std::map<std::string, Entry> entries_;
  // Per layer, per call made so far: its outputs.
  std::map<std::string, std::vector<std::vector<KerasTensor>>> outputs_;
};

// Models are layers to the registry, so nested models and model configs deserialize like any
// layer. This file holds Model::get_config, which Model's vtable needs, so it is linked into
// every program that has a Model.
const bool kModelsRegistered = [] {
  layers::register_layer(
      "Functional", Model::from_config,
      {.module = "keras.src.models.functional", .registered_name = "Functional"});
  // Keras reads a functional config under keras.Model's name too.
  layers::register_layer("Model", Model::from_config, {.module = "keras"});
  layers::register_layer("Sequential", Sequential::from_config, {.module = "keras"});
  return true;
}();

}  // namespace

Config Model::get_config() const {
  if (!graph_) return Layer::get_config();
  // Each layer's calls in node order; a layer config lists its calls, InputLayers none.
  std::map<const Layer*, std::vector<const CallRecord*>> calls;
  for (const auto& record : graph_->records()) {
    std::vector<const CallRecord*>& list = calls[record->layer.get()];
    list.resize(std::max(list.size(), graph_->node_index(*record) + 1));
    list[graph_->node_index(*record)] = record.get();
  }
  std::set<std::string> names;
  Config layer_list = Config::list();
  for (const LayerPtr& layer : graph_->layers()) {
    KILN_CHECK(names.insert(layer->name()).second, "model '", name(), "' has two layers named '",
               layer->name(), "'; a config refers to layers by name");
    Config nodes = Config::list();
    for (const CallRecord* record : calls[layer.get()])
      if (!record->inputs.empty()) nodes.push_back(node_config(*graph_, *record));
    layer_list.push_back(layers::serialize_layer(*layer)
                             .set("name", layer->name())
                             .set("inbound_nodes", std::move(nodes)));
  }
  return Config::map()
      .set("name", name())
      .set("trainable", trainable())
      .set("layers", std::move(layer_list))
      .set("input_layers", io_config(*graph_, graph_->inputs()))
      .set("output_layers", io_config(*graph_, graph_->outputs()));
}

LayerPtr Model::from_config(const Config& config) {
  KILN_CHECK(config.contains("layers"), config.where(),
             "a model config without 'layers' is a subclassed model's: only functional models "
             "rebuild from their config (a subclass registers its own from_config)");
  config.check_keys({"name", "trainable", "layers", "input_layers", "output_layers"}, "Functional");
  const std::string name = config.get_string("name", "");
  const GraphRebuilder graph(config["layers"], name);
  auto model =
      std::make_shared<Model>(graph.io_tensors(config["input_layers"], "input_layers"),
                              graph.io_tensors(config["output_layers"], "output_layers"), name);
  // Only a frozen model is set: its layers keep the flags of their own configs otherwise.
  if (!config.get_bool("trainable", true)) model->set_trainable(false);
  return model;
}

}  // namespace kiln
