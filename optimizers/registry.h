#pragma once
// Optimizers by Keras name and config: get("adam"), from_config for YAML runs and checkpoints,
// serialize, and registration of user optimizers, which then work by name everywhere.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/optimizers/optimizer.h"

namespace kiln::optimizers {

// Builds an optimizer from the "config" map of Keras's serialized form (empty: the defaults).
using OptimizerFactory = std::function<OptimizerPtr(const Config& config)>;

// By Keras identifier or class name, case-insensitive ("adam", "Adam", "rmsprop", "RMSprop"),
// with Keras's default arguments. An unknown name is an error with the closest known names.
OptimizerPtr get(std::string_view name);
// A name (as get), or Keras's {"class_name": "Adam", "config": {...}} (Keras's "module" and
// "registered_name" are accepted and ignored). The config's learning_rate may be a schedule's
// config. Unknown names and keys are errors with the closest known ones.
OptimizerPtr from_config(const Config& config);
// {"class_name": ..., "config": get_config()}, which from_config and Keras's deserialize read.
Config serialize(const Optimizer& optimizer);
// Makes `class_name` (case-insensitive) usable by get and from_config; a taken name is an error.
void register_optimizer(const std::string& class_name, OptimizerFactory factory);
std::vector<std::string> known_names();  // lower case, sorted

// For factories: the shared options from a Keras config. Keys other than the shared ones and
// `own_keys` are errors.
OptimizerOptions options_from_config(const Config& config, std::string_view class_name,
                                     const std::vector<std::string>& own_keys,
                                     double default_learning_rate = 0.001);

}  // namespace kiln::optimizers
