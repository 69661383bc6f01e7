#pragma once
// Full training checkpoints: everything a killed run needs to continue as if it never stopped.
//
// One HDF5 file, written atomically: the model's weights in Keras 3's layout (so the file also
// loads as a .weights.h5, in kiln or Keras), the optimizer's state as Keras saves it
// (optimizer/vars/0 = iterations, ...), and kiln's own group: the epoch and step reached, the
// process random generator, the layers' random streams (dropout), the model's config and the
// run's config (both JSON).
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/training/saving/weights_file.h"

namespace kiln::saving {

// What a checkpoint holds of a run: the model's weights, the optimizer's state as a weight group
// ({"optimizer", its variables in Keras's order, its snake_case class name}), the layers' random
// streams and the model's Keras config (JSON; "" for a model without one, a subclass).
// Model::checkpoint_contents gathers them.
struct CheckpointContents {
  ModelWeights model;
  layers::WeightGroup optimizer;
  std::vector<Variable> random_states;
  std::string model_config;
};

// Where a run stands: the epoch in progress and how many of its batches are trained. A
// checkpoint at an epoch's end says {epoch + 1, 0}.
struct TrainingState {
  int epoch = 0;
  int64_t step = 0;
};

// The optimizer state is saved as it is (built or not).
void save_checkpoint(const CheckpointContents& contents, const std::string& path,
                     const TrainingState& state, const std::string& run_config = "");

// Restores weights, optimizer state and random state into `contents`' variables, which come from
// a model compiled with the same optimizer and built for training (fit builds it before its
// callbacks start); checks all of it before assigning any. Returns where the run stood.
TrainingState load_checkpoint(const CheckpointContents& contents, const std::string& path);

// What a checkpoint records about its run, read without a model.
struct CheckpointInfo {
  TrainingState state;
  std::string model_config;  // JSON; empty when the model has no config (subclassed)
  std::string run_config;    // JSON; empty when none was given
};
CheckpointInfo read_checkpoint_info(const std::string& path);

}  // namespace kiln::saving
