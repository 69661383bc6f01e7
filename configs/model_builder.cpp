#include "kiln/configs/model_builder.h"

#include <map>

#include "kiln/configs/keras_objects.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/sequential.h"

namespace kiln::configs {
namespace {

using layers::KerasTensor;

// {shape: [28, 28], dtype: float32} -> an Input.
KerasTensor make_input(const Config& spec, const std::string& name) {
  spec.check_keys({"shape", "dtype"}, "an input");
  KILN_CHECK(spec.contains("shape"), spec.where(),
             "an input needs a shape (without the batch dim)");
  std::vector<int64_t> dims;
  for (const Config& d : spec["shape"].as_list()) {
    if (d.is_null()) {
      dims.push_back(-1);  // any size
      continue;
    }
    KILN_CHECK(d.as_int() >= 0, d.where(), d.as_int(),
               " is not a dimension: give a size >= 0, or null for any size");
    dims.push_back(d.as_int());
  }
  const DType dtype = dtype_from_name(spec.get_string("dtype", "float32"));
  return layers::Input(Shape(std::move(dims)), dtype, name);
}

// One `layers` entry as a layer: {Dense: {units: 10}, name: out, inputs: [...]}.
layers::LayerPtr make_layer(const Config& entry) {
  const std::optional<Config> object = keras_object(entry, "a layer", {"name", "inputs"});
  KILN_CHECK(object.has_value(), entry.where(),
             "a layer must be {ClassName: {arguments}}, e.g. {Dense: {units: 10}}, got '",
             entry.to_json(), "'");
  const std::string class_name = (*object)["class_name"].as_string();
  check_class((*object)["class_name"], class_name, layers::known_layers(), "layer type");
  Config serialized = *object;
  if (entry.contains("name")) serialized.find("config")->set("name", entry["name"]);
  return located(entry, [&] { return layers::deserialize_layer(serialized); });
}

std::shared_ptr<Model> sequential(const Config& model) {
  model.check_keys({"name", "input", "layers"}, "a Sequential model");
  std::vector<layers::LayerRef> list;
  if (model.contains("input")) list.emplace_back(make_input(model["input"], ""));
  for (const Config& entry : model["layers"].as_list()) {
    KILN_CHECK(!entry.is_map() || !entry.contains("inputs"), entry.where(),
               "'inputs' belongs to functional models (give the model named inputs and outputs)");
    list.emplace_back(make_layer(entry));
  }
  return std::make_shared<Sequential>(std::move(list), model.get_string("name", ""));
}

std::shared_ptr<Model> functional(const Config& model) {
  model.check_keys({"name", "inputs", "layers", "outputs"}, "a functional model");
  KILN_CHECK(model["inputs"].is_map(), model["inputs"].where(),
             "inputs must map names to {shape: [...], dtype: ...}");
  std::map<std::string, KerasTensor> tensors;
  std::vector<std::string> names;
  std::vector<KerasTensor> inputs;
  for (const auto& [name, spec] : model["inputs"].as_map()) {
    inputs.push_back(make_input(spec, name));
    tensors[name] = inputs.back();
    names.push_back(name);
  }
  const auto tensor = [&](const Config& ref) {
    const std::string& name = ref.as_string();
    const auto it = tensors.find(name);
    if (it == tensors.end()) {
      const std::string hint = did_you_mean(name, names);
      throw Error(detail::concat(ref.where(), "no input or earlier layer named '", name, "'",
                                 hint.empty() ? "" : " (" + hint + ")"));
    }
    return it->second;
  };
  for (const Config& entry : model["layers"].as_list()) {
    KILN_CHECK(entry.is_map() && entry.contains("name") && entry.contains("inputs"), entry.where(),
               "a layer of a functional model needs a name and its inputs");
    const std::string name = entry["name"].as_string();
    KILN_CHECK(!tensors.contains(name), entry["name"].where(), "the name '", name,
               "' is already taken");
    const layers::LayerPtr layer = make_layer(entry);
    const Config& in = entry["inputs"];
    std::vector<KerasTensor> args;
    for (const Config& ref : in.is_list() ? in.as_list() : Config::List{in})
      args.push_back(tensor(ref));
    const std::vector<KerasTensor> out = (*layer)(args);
    tensors[name] = out.at(0);
    names.push_back(name);
  }
  std::vector<KerasTensor> outputs;
  const Config& out = model["outputs"];
  for (const Config& ref : out.is_list() ? out.as_list() : Config::List{out})
    outputs.push_back(tensor(ref));
  return std::make_shared<Model>(std::move(inputs), std::move(outputs),
                                 model.get_string("name", ""));
}

}  // namespace

std::shared_ptr<Model> build_model(const Config& model) {
  KILN_CHECK(model.is_map() && model.contains("layers"), model.where(),
             "model needs a list of layers");
  if (model.contains("outputs") || (model.contains("inputs") && model["inputs"].is_map()))
    return functional(model);
  return sequential(model);
}

}  // namespace kiln::configs
