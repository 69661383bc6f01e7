#pragma once
// Layer class names -> factories, for configs (YAML, model_config in checkpoints). Built-in layers
// are known from the start; a custom layer registers with one line:
//   kiln::layers::register_layer("Scale", Scale::from_config);
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/layers/layer.h"

namespace kiln::layers {

using LayerFactory = std::function<LayerPtr(const Config& config)>;

// Where Keras finds a class when it reads a serialized config: the public module the class is
// exported from, with no registered name ("keras.layers"), or the Python module that defines an
// unexported class and the name it is registered under ("keras.src.models.functional",
// "Functional").
struct KerasClassPath {
  std::string module = "keras.layers";
  std::string registered_name{};  // "" is written as null
};

// Registering a name twice is an error (a built-in cannot be replaced).
void register_layer(const std::string& class_name, LayerFactory factory, KerasClassPath path = {});
bool is_registered_layer(const std::string& class_name);
std::vector<std::string> known_layers();

// {"class_name": "Dense", "config": {...}} -> a new layer; an unknown class name is an error
// with the closest known names.
LayerPtr deserialize_layer(const Config& config);
// {"module": "keras.layers", "class_name": ..., "config": ..., "registered_name": ...}.
Config serialize_layer(const Layer& layer);

}  // namespace kiln::layers
