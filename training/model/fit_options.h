#pragma once
// Options of fit / evaluate / predict, with Keras's names and defaults.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/training/callbacks/callback.h"

namespace kiln {

// Keras's verbose="auto": a progress bar on a terminal, one line per epoch otherwise.
inline constexpr int kVerboseAuto = -1;

struct ValidationData {
  std::vector<Tensor> x;
  std::vector<Tensor> y;
  Tensor sample_weight = {};
};

struct FitOptions {
  int64_t batch_size = 32;
  int epochs = 1;
  int verbose = kVerboseAuto;  // 0 silent, 1 progress bar, 2 one line per epoch
  std::vector<CallbackPtr> callbacks = {};
  double validation_split = 0;  // the last fraction of x/y, before shuffling (as Keras)
  std::optional<ValidationData> validation_data = std::nullopt;
  std::optional<datasets::Dataset> validation_dataset = std::nullopt;
  bool shuffle = true;
  std::map<int64_t, double> class_weight = {};
  Tensor sample_weight = {};
  int initial_epoch = 0;
  int64_t steps_per_epoch = -1;        // -1: the whole data
  int64_t validation_batch_size = -1;  // -1: batch_size
  int validation_freq = 1;
};

struct EvaluateOptions {
  int64_t batch_size = 32;
  int verbose = kVerboseAuto;
  Tensor sample_weight = {};
  std::vector<CallbackPtr> callbacks = {};
  int64_t steps = -1;
};

struct PredictOptions {
  int64_t batch_size = 32;
  int verbose = kVerboseAuto;
  std::vector<CallbackPtr> callbacks = {};
  int64_t steps = -1;
};

}  // namespace kiln
