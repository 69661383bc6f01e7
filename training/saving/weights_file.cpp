#include "kiln/training/saving/weights_file.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/training/saving/atomic_write.h"
#include "kiln/training/saving/h5_file.h"
#include "kiln/training/saving/variable_groups.h"

namespace kiln::saving {
namespace {

std::vector<StagedValue> stage_keras3(const ModelWeights& model, const H5Group& root) {
  return stage_groups(root, model.groups, "weights for");
}

// Keras's legacy order for a layer's weights: trainable ones (sublayers' included), then the
// rest.
std::vector<Variable> legacy_order(const layers::Layer& layer) {
  std::vector<Variable> all = layer.weights();
  std::stable_partition(all.begin(), all.end(), [](const Variable& v) { return v.trainable(); });
  return all;
}

std::vector<StagedValue> stage_legacy(const ModelWeights& model, const H5Group& root) {
  const H5Group weights = root.has_group("model_weights") ? root.open_group("model_weights") : root;
  std::vector<std::string> stored;
  for (const std::string& name : weights.attr_strings("layer_names"))
    if (weights.has_group(name) && !weights.open_group(name).attr_strings("weight_names").empty())
      stored.push_back(name);
  std::vector<layers::LayerPtr> layers;
  for (const layers::LayerPtr& layer : model.layers)
    if (!layer->weights().empty()) layers.push_back(layer);
  if (stored.size() != layers.size()) {
    std::string file_names, model_names;
    for (const std::string& n : stored) file_names += (file_names.empty() ? "" : ", ") + n;
    for (const auto& l : layers) model_names += (model_names.empty() ? "" : ", ") + l->name();
    throw Error(detail::concat(weights.where(), ": the file has weights for ", stored.size(),
                               " layers (", file_names, ") but model '", model.name, "' has ",
                               layers.size(), " layers with weights (", model_names, ")"));
  }
  std::vector<StagedValue> staged;
  for (size_t k = 0; k < layers.size(); ++k) {
    const H5Group group = weights.open_group(stored[k]);
    const std::vector<std::string> names = group.attr_strings("weight_names");
    const std::vector<Variable> vars = legacy_order(*layers[k]);
    KILN_CHECK(names.size() == vars.size(), group.where(), ": layer '", layers[k]->name(), "' has ",
               vars.size(), " weights in the model but ", names.size(), " in the file");
    for (size_t i = 0; i < vars.size(); ++i)
      staged.push_back(stage_value(group, names[i], vars[i]));
  }
  return staged;
}

}  // namespace

void save_weights(const ModelWeights& model, const std::string& path) {
  // In memory, then to disk with checked system calls (save_checkpoint says why).
  const H5File file = H5File::create_in_memory(path);
  write_weights(model, file.root());
  write_file_atomically(path, file.image());
}

void load_weights(const ModelWeights& model, const std::string& path) {
  read_weights(model, H5File::open(path).root());
}

void write_weights(const ModelWeights& model, H5Group root) {
  KILN_CHECK(model.built, "save_weights: model '", model.name,
             "' has no weights yet (build it or call it once first)");
  write_groups(root, model.groups);
}

void read_weights(const ModelWeights& model, const H5Group& root) {
  KILN_CHECK(model.built, "load_weights: model '", model.name,
             "' is not built yet (build it or call it once first, so its weights exist)");
  std::vector<StagedValue> staged;
  if (root.has_group("model_weights") || root.has_attr("layer_names")) {
    staged = stage_legacy(model, root);
  } else {
    KILN_CHECK(root.has_group("layers") || root.has_group("vars"), root.where(),
               " is not a Keras weights file (no layers/, vars/ or model_weights/ group)");
    staged = stage_keras3(model, root);
  }
  assign_all(staged);
}

}  // namespace kiln::saving
