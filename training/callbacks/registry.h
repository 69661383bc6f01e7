#pragma once
// Callbacks by Keras class name with Keras's arguments, for run files' `callbacks` lists:
//
//   EarlyStopping: {monitor: val_loss, patience: 2, restore_best_weights: true}
//   ModelCheckpoint: {filepath: "best.weights.h5", save_best_only: true}
//   TensorBoard: {log_dir: logs, histogram_freq: 1}
//
// A callback class registers here with one line, next to its class, like layers and losses.
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/training/callbacks/callback.h"

namespace kiln::callbacks {

// Where a run writes: relative paths (a checkpoint's filepath, TensorBoard's log_dir) go inside
// output_dir; full checkpoints store run_config, the run description as JSON.
struct CallbackPlace {
  std::string output_dir{};
  std::string run_config{};
};

using CallbackFactory = std::function<CallbackPtr(const Config& args, const CallbackPlace& place)>;

// A name ("TerminateOnNaN"), {EarlyStopping: {patience: 2}} or {"class_name", "config"}; an
// unknown class or argument is an error naming it, with the closest known names.
CallbackPtr from_config(const Config& spec, const CallbackPlace& place = {});
// {"class_name": ..., "config": callback.get_config()}.
Config serialize(const std::string& class_name, const Callback& callback);
// Makes `class_name` usable in run files; a taken name is an error.
void register_callback(const std::string& class_name, CallbackFactory factory);
std::vector<std::string> known_names();

// `path` inside `place.output_dir` unless it is absolute.
std::string inside(const CallbackPlace& place, const std::string& path);

}  // namespace kiln::callbacks
