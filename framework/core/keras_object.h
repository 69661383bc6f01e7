#pragma once
// The ways a config names a Keras object (an initializer, a constraint, a loss, an optimizer, a
// layer in a run file), read the same everywhere:
//
//   glorot_uniform                               a name: the class with its default arguments
//   {RandomNormal: {stddev: 0.02}}               a class with arguments (run files)
//   {class_name: RandomNormal, config: {...}}    Keras's serialized form (.keras files)
//
// Errors point at the value's file:line:column and key path.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/named_registry.h"

namespace kiln {

// A class with arguments (or Keras's form) as {"class_name", "config"}; nullopt for a plain name.
// `extra_keys` may sit beside the class key (a layer's "name" and "inputs").
std::optional<Config> keras_object(const Config& spec, const std::string& what,
                                   const std::vector<std::string>& extra_keys = {});

// Any of the three forms as a class name (a Config string that keeps its place in the file) and
// its arguments (an empty map for a plain name).
struct KerasObject {
  Config class_name;
  Config arguments;
};
KerasObject read_keras_object(const Config& spec, const std::string& what);

// A registered class as a config makes it: the arguments it takes and how it is made from them.
template <typename T>
struct ArgumentsFactory {
  std::vector<std::string> keys;
  std::function<T(const Config& arguments)> make;
};

// `spec`, in any of the three forms, made by its class in `registry`; an unknown class or an
// argument the class does not take is refused naming it, with a suggestion.
template <typename T>
T make_keras_object(const NamedRegistry<ArgumentsFactory<T>>& registry, const Config& spec,
                    const std::string& what) {
  const KerasObject object = read_keras_object(spec, what);
  const std::string& class_name = object.class_name.as_string();
  const ArgumentsFactory<T> factory = registry.get(class_name, object.class_name.where());
  object.arguments.check_keys(factory.keys, class_name);
  return factory.make(object.arguments);
}

// Keras's serialized form: {"module": module, "class_name", "config", "registered_name": null}.
Config serialize_keras_object(std::string_view module, const std::string& class_name,
                              Config config);

}  // namespace kiln
