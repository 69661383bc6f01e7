#include "layers/registry.h"

#include <map>
#include <mutex>

#include "framework/core/error.h"
#include "framework/core/suggest.h"
#include "layers/builtin_layers.h"

namespace kiln::layers {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, LayerFactory, std::less<>> factories = builtin_layer_factories();
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_layer(const std::string& class_name, LayerFactory factory) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  KILN_CHECK(!r.factories.contains(class_name), "layer class '", class_name,
             "' is already registered");
  r.factories.emplace(class_name, std::move(factory));
}

bool is_registered_layer(const std::string& class_name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.factories.contains(class_name);
}

std::vector<std::string> known_layers() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, factory] : r.factories) out.push_back(name);
  return out;
}

LayerPtr deserialize_layer(const Config& config) {
  const std::string class_name = config["class_name"].as_string();
  LayerFactory factory;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.factories.find(class_name); it != r.factories.end()) factory = it->second;
  }
  if (!factory) {
    const std::string hint = did_you_mean(class_name, known_layers());
    throw Error(config["class_name"].where() + "unknown layer class '" + class_name + "'" +
                (hint.empty() ? "" : " (" + hint + ")") +
                "; custom layers register with kiln::layers::register_layer");
  }
  return factory(config.contains("config") ? config["config"] : Config::map());
}

Config serialize_layer(const Layer& layer) {
  return Config::map()
      .set("module", "keras.layers")
      .set("class_name", layer.class_name())
      .set("config", layer.get_config())
      .set("registered_name", Config());
}

}  // namespace kiln::layers
