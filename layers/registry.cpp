#include "kiln/layers/registry.h"

#include <optional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/layers/builtin_layers.h"

namespace kiln::layers {
namespace {

struct Entry {
  LayerFactory factory;
  KerasClassPath path;
};

NamedRegistry<Entry>& registry() {
  static NamedRegistry<Entry> r = [] {
    NamedRegistry<Entry> built("layer class", nullptr,
                               "custom layers register with kiln::layers::register_layer");
    for (auto& [name, factory] : builtin_layer_factories())
      built.add(name, Entry{std::move(factory), {}});
    return built;
  }();
  return r;
}

}  // namespace

void register_layer(const std::string& class_name, LayerFactory factory, KerasClassPath path) {
  registry().add(class_name, Entry{std::move(factory), std::move(path)});
}

bool is_registered_layer(const std::string& class_name) {
  return registry().contains(class_name);
}

std::vector<std::string> known_layers() {
  return registry().names();
}

LayerPtr deserialize_layer(const Config& config) {
  const Config& class_name = config["class_name"];
  const LayerFactory factory = registry().get(class_name.as_string(), class_name.where()).factory;
  return factory(config.contains("config") ? config["config"] : Config::map());
}

Config serialize_layer(const Layer& layer) {
  const std::string class_name = layer.class_name();
  const std::optional<Entry> entry = registry().find(class_name);
  const KerasClassPath path = entry ? entry->path : KerasClassPath{};
  return Config::map()
      .set("module", path.module)
      .set("class_name", class_name)
      .set("config", layer.get_config())
      .set("registered_name",
           path.registered_name.empty() ? Config() : Config(path.registered_name));
}

}  // namespace kiln::layers
