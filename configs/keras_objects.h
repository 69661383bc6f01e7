#pragma once
// The ways a run file names a Keras object, turned into Keras's serialized form
// {"class_name": ..., "config": {...}} that kiln's registries read:
//
//   adam                                   a name (Keras's string identifiers)
//   {Adam: {learning_rate: 0.001}}         a class with arguments
//   {class_name: Adam, config: {...}}      Keras's own form
//
// Errors point at the value's file:line:column and key path.
#include <optional>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"

namespace kiln::configs {

// A class with arguments (or Keras's form) as {"class_name", "config"}; nullopt for a plain name.
// `extra_keys` may sit beside the class key (a layer's "name" and "inputs").
std::optional<Config> keras_object(const Config& spec, const std::string& what,
                                   const std::vector<std::string>& extra_keys = {});

// Whether `message` already points into the file `at` comes from (an error raised while reading
// a nested value names its own place).
bool points_into_file(const std::string& message, const Config& at);

// Runs `f`; an error from it that does not point into the run file gets `at`'s place first.
template <typename F>
auto located(const Config& at, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (at.origin().empty() || points_into_file(e.what(), at)) throw;
    throw Error(at.where() + e.what());
  }
}

// `spec`'s class name checked against `known`, with a suggestion when it is not there.
void check_class(const Config& spec, const std::string& class_name,
                 const std::vector<std::string>& known, const std::string& what);

}  // namespace kiln::configs
