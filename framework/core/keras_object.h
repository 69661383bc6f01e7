#pragma once
// The ways a config names a Keras object (an initializer, a constraint, a loss, an optimizer, a
// layer in a run file), read the same everywhere:
//
//   glorot_uniform                               a name: the class with its default arguments
//   {RandomNormal: {stddev: 0.02}}               a class with arguments (run files)
//   {class_name: RandomNormal, config: {...}}    Keras's serialized form (.keras files)
//
// Errors point at the value's file:line:column and key path.
#include <optional>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"

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

}  // namespace kiln
