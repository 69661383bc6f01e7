#pragma once
// Losses by Keras name and from Keras configs, and registration of custom losses, which then work
// by name wherever a loss name is accepted (compile, YAML runs, checkpoints' configs).
//
//   losses::register_loss("scaled_mse", [](const Tensor& y_true, const Tensor& y_pred) {
//     return losses::mean_squared_error(y_true, y_pred) * 2.0;
//   });
//   LossPtr loss = losses::get("scaled_mse");  // the standard weighting and reduction
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/losses/loss.h"

namespace kiln::losses {

// A loss with its default arguments, by any name Keras accepts: class names
// ("CategoricalCrossentropy"), function names ("categorical_crossentropy") and aliases ("mse",
// "mae", "mape", "kld", "bce", "logcosh"), plus registered names. An unknown name is an error
// with the closest known names.
LossPtr get(std::string_view name);

// A name (as get) or Keras's serialized form {"class_name": ..., "config": {...}} (Keras's
// "module" and "registered_name" keys are accepted too). Config keys the loss does not take are
// errors with the closest known key.
LossPtr from_config(const Config& config);

// {"class_name": ..., "config": loss.get_config()}: what from_config reads and Keras's
// keras.losses.deserialize accepts.
Config serialize(const Loss& loss);

// Per-sample losses of (y_true, y_pred), weighted and reduced like the built-ins. Its config is
// a name and a reduction; the class name is the registered name.
using LossFunction = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;
void register_loss(const std::string& name, LossFunction per_sample);

// A Loss subclass by its class name; the factory reads the class's get_config (get passes an
// empty map, for the defaults).
using LossFactory = std::function<LossPtr(const Config& config)>;
void register_loss_class(const std::string& class_name, LossFactory factory);

// Every name get accepts, sorted.
std::vector<std::string> known_names();

}  // namespace kiln::losses
