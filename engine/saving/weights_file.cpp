#include "engine/saving/weights_file.h"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/model/model.h"
#include "engine/saving/atomic_write.h"
#include "engine/saving/h5_file.h"
#include "framework/core/error.h"
#include "framework/ops/ops.h"

namespace kiln::saving {
namespace {

std::string vars_path(const std::string& group) {
  return group.empty() ? "vars" : group + "/vars";
}

std::string shape_string(const Shape& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

// A value read from the file for a variable, assigned only once every one has been read.
struct Staged {
  Variable variable;
  Tensor value;
};

// Reads `dataset` of `group` for `v`: the shapes must agree and the stored type must be a number
// of the variable's kind (float or integer); its width may differ (float64 into float32).
Staged stage(const H5Group& group, const std::string& dataset, const Variable& v) {
  const H5DatasetInfo info = group.info(dataset);
  KILN_CHECK(info.shape == v.shape(), group.where(), "/", dataset, ": variable '", v.name(),
             "' has shape ", shape_string(v.shape()), " in the model but ",
             shape_string(info.shape), " in the file");
  KILN_CHECK(info.dtype.has_value(), group.where(), "/", dataset, ": variable '", v.name(),
             "' is stored as a type that is not a number");
  KILN_CHECK(is_floating(*info.dtype) == is_floating(v.dtype()), group.where(), "/", dataset,
             ": variable '", v.name(), "' is ", dtype_name(v.dtype()), " in the model but ",
             dtype_name(*info.dtype), " in the file");
  Tensor value = group.read(dataset);
  if (value.dtype() != v.dtype()) value = ops::cast(value, v.dtype());
  return {v, value};
}

std::vector<Staged> stage_keras3(const Model& model, const H5Group& root) {
  std::vector<Staged> staged;
  for (const layers::WeightGroup& g : model.weight_groups()) {
    if (g.variables.empty()) continue;
    const std::string path = vars_path(g.path);
    KILN_CHECK(root.has_group(path), root.where(), ": no weights for '", g.name, "' (",
               g.variables.size(), " variables expected at ", path,
               "); is the file from another architecture?");
    const H5Group vars = root.open_group(path);
    const size_t stored = vars.children().size();
    KILN_CHECK(stored == g.variables.size(), vars.where(), ": '", g.name, "' has ",
               g.variables.size(), " variables in the model but ", stored, " in the file");
    for (size_t i = 0; i < g.variables.size(); ++i)
      staged.push_back(stage(vars, std::to_string(i), g.variables[i]));
  }
  return staged;
}

// Keras's legacy order for a layer's weights: trainable ones (sublayers' included), then the
// rest.
std::vector<Variable> legacy_order(const layers::Layer& layer) {
  std::vector<Variable> all = layer.weights();
  std::stable_partition(all.begin(), all.end(), [](const Variable& v) { return v.trainable(); });
  return all;
}

std::vector<Staged> stage_legacy(const Model& model, const H5Group& root) {
  const H5Group weights = root.has_group("model_weights") ? root.open_group("model_weights") : root;
  std::vector<std::string> stored;
  for (const std::string& name : weights.attr_strings("layer_names"))
    if (weights.has_group(name) && !weights.open_group(name).attr_strings("weight_names").empty())
      stored.push_back(name);
  std::vector<layers::LayerPtr> layers;
  for (const layers::LayerPtr& layer : model.layers())
    if (!layer->weights().empty()) layers.push_back(layer);
  if (stored.size() != layers.size()) {
    std::string file_names, model_names;
    for (const std::string& n : stored) file_names += (file_names.empty() ? "" : ", ") + n;
    for (const auto& l : layers) model_names += (model_names.empty() ? "" : ", ") + l->name();
    throw Error(detail::concat(weights.where(), ": the file has weights for ", stored.size(),
                               " layers (", file_names, ") but model '", model.name(), "' has ",
                               layers.size(), " layers with weights (", model_names, ")"));
  }
  std::vector<Staged> staged;
  for (size_t k = 0; k < layers.size(); ++k) {
    const H5Group group = weights.open_group(stored[k]);
    const std::vector<std::string> names = group.attr_strings("weight_names");
    const std::vector<Variable> vars = legacy_order(*layers[k]);
    KILN_CHECK(names.size() == vars.size(), group.where(), ": layer '", layers[k]->name(), "' has ",
               vars.size(), " weights in the model but ", names.size(), " in the file");
    for (size_t i = 0; i < vars.size(); ++i) staged.push_back(stage(group, names[i], vars[i]));
  }
  return staged;
}

}  // namespace

void save_weights(const Model& model, const std::string& path) {
  KILN_CHECK(model.built(), "save_weights: model '", model.name(),
             "' has no weights yet (build it or call it once first)");
  const std::vector<layers::WeightGroup> groups = model.weight_groups();
  write_atomically(path, [&](const std::string& temporary) {
    H5Group root = H5File::create(temporary).root();
    for (const layers::WeightGroup& g : groups) {
      H5Group vars = root.group(vars_path(g.path));
      vars.set_attr("name", g.name);
      for (size_t i = 0; i < g.variables.size(); ++i)
        vars.write(std::to_string(i), g.variables[i].value());
    }
  });
}

void load_weights(Model& model, const std::string& path) {
  KILN_CHECK(model.built(), "load_weights: model '", model.name(),
             "' is not built yet (build it or call it once first, so its weights exist)");
  const H5File file = H5File::open(path);
  const H5Group root = file.root();
  std::vector<Staged> staged;
  if (root.has_group("model_weights") || root.has_attr("layer_names")) {
    staged = stage_legacy(model, root);
  } else {
    KILN_CHECK(root.has_group("layers") || root.has_group("vars"), path,
               " is not a Keras weights file (no layers/, vars/ or model_weights/ group)");
    staged = stage_keras3(model, root);
  }
  for (const Staged& s : staged) s.variable.assign(s.value);
}

}  // namespace kiln::saving
