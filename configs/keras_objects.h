#pragma once
// Run-file errors about Keras objects (the forms themselves are read by
// framework/core/keras_object.h): where they point, and unknown class names.
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"

namespace kiln::configs {

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
