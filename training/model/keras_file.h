#pragma once
// Whole models in Keras 3's `.keras` format, both ways: model.save("m.keras") in Keras and
// kiln::load_model here read each other's files.
//
// The file is a zip (training/saving/keras_archive.h) of
//   metadata.json     {"keras_version", "date_saved"}: the Keras release whose format this is
//   config.json       the model's Keras config: module, class_name, config (the layers, with
//                     their configs and connections), registered_name, build_config, and
//                     (compiled models only) compile_config (compile_config.h)
//   model.weights.h5  the weights in Keras 3's layout (weights_file.h), and the optimizer's
//                     state under optimizer/vars as Keras saves it
#include <functional>
#include <memory>
#include <string>

#include "kiln/training/model/compile_options.h"

namespace kiln {

class Model;

// The Keras release whose .keras layout kiln writes and is tested against.
inline constexpr const char* kKerasFormatVersion = "3.15.1";

// Model::save: `path` must end in .keras. A subclassed model (no Keras config) is refused
// with the way to keep its weights (save_weights). The write is atomic.
void save_model(const Model& model, const std::string& path);

struct LoadModelOptions {
  // Compile the model from the file's compile_config (when it has one) and restore the
  // optimizer's state, as keras.saving.load_model(compile=True) does.
  bool compile = true;
  // Applied to the compile arguments read from the file before compiling: where and how this
  // program runs the model (device, strategy, steps_per_execution, ...), which the file does
  // not say.
  std::function<void(CompileOptions&)> adjust_compile = nullptr;
};

// keras.saving.load_model: the model a .keras file describes, with its weights (and, compiled,
// its optimizer state). A layer class kiln does not know is an error naming the class and the
// file; custom layers load when registered under the same class name
// (layers::register_layer).
std::shared_ptr<Model> load_model(const std::string& path, const LoadModelOptions& options = {});

}  // namespace kiln
