#pragma once
// A compiled model's compile arguments as Keras 3 stores them in a .keras file's config.json
// ("compile_config": optimizer, loss, loss_weights, metrics, weighted_metrics, run_eagerly,
// steps_per_execution, jit_compile), and back: keras.saving.load_model compiles the model it
// loads from these, and so does kiln::load_model.
#include "kiln/framework/core/config.h"
#include "kiln/training/model/compile_options.h"

namespace kiln {

class Model;

// The compile arguments of compiled `model`: objects serialized with their Keras modules,
// names (losses and metrics given by name) kept as names.
Config compile_config(const Model& model);

// CompileOptions from a compile_config (Keras's or kiln's); objects kiln lacks, or arguments it
// does not take, are errors naming them. Device and strategy are left to the caller.
CompileOptions compile_options_from_config(const Config& config);

}  // namespace kiln
