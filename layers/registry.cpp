#include "kiln/layers/registry.h"

#include <map>
#include <mutex>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/layers/builtin_layers.h"

namespace kiln::layers {
namespace {

struct Entry {
  LayerFactory factory;
  KerasClassPath path;
};

std::map<std::string, Entry, std::less<>> builtin_entries() {
  std::map<std::string, Entry, std::less<>> entries;
  for (auto& [name, factory] : builtin_layer_factories())
    entries.emplace(name, Entry{std::move(factory), {}});
  return entries;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry, std::less<>> entries = builtin_entries();
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_layer(const std::string& class_name, LayerFactory factory, KerasClassPath path) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  KILN_CHECK(!r.entries.contains(class_name), "layer class '", class_name,
             "' is already registered");
  r.entries.emplace(class_name, Entry{std::move(factory), std::move(path)});
}

bool is_registered_layer(const std::string& class_name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.entries.contains(class_name);
}

std::vector<std::string> known_layers() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, entry] : r.entries) out.push_back(name);
  return out;
}

LayerPtr deserialize_layer(const Config& config) {
  const std::string class_name = config["class_name"].as_string();
  LayerFactory factory;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.entries.find(class_name); it != r.entries.end()) factory = it->second.factory;
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
  const std::string class_name = layer.class_name();
  KerasClassPath path;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.entries.find(class_name); it != r.entries.end()) path = it->second.path;
  }
  return Config::map()
      .set("module", path.module)
      .set("class_name", class_name)
      .set("config", layer.get_config())
      .set("registered_name",
           path.registered_name.empty() ? Config() : Config(path.registered_name));
}

}  // namespace kiln::layers
