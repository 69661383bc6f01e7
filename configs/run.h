#pragma once
// A whole run from its YAML file: what `kiln train`, `validate`, `evaluate` and `predict` do.
//
// Top-level keys (Keras names throughout): model, data, loss, optimizer, metrics, callbacks,
// training {epochs, seed, steps_per_execution, run_eagerly, step_shapes}, precision (a dtype
// policy name), distribute {strategy, devices, bucket_mb, overlap, timeout_s}, checkpoint
// {directory, filename, monitor, mode, save_best_only, save_freq, keep_last}, output {dir,
// save_model}. See configs/*.yaml.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/training/model/model.h"

namespace kiln::configs {

// The run file with `overrides` ("optimizer.learning_rate=3e-4") applied and the top-level
// keys checked.
Config load_run(const std::string& file, const std::vector<std::string>& overrides = {});

// Builds everything a run needs (model, loss, optimizer, metrics, callbacks) and checks the data
// section, without loading data or training: `kiln validate`. Model arguments that come from the
// data ("${data.vocabulary_size}") are checked with stand-in values.
void validate_run(const Config& run);

struct TrainOptions {
  bool resume = false;      // continue from the latest checkpoint of the run directory...
  std::string resume_from;  // ...or from this checkpoint
  int verbose = -1;         // fit's verbose (-1: auto)
};

struct TrainResult {
  std::string output_dir;
  std::map<std::string, double> test_scores;  // empty when the data has no test split
  bool interrupted = false;                   // stopped by SIGINT after writing a checkpoint
  // Whether this process reports the run: rank 0 of a data-parallel run, or the only process.
  bool chief = true;
  std::string saved_model;                    // output.save_model's .keras file, when asked
  std::vector<std::string> tensorboard_dirs;  // the TensorBoard callbacks' log_dirs
};

// Trains as the file says. The output directory gets config.yaml (the resolved run), log.csv
// (one row per epoch), latest.checkpoint.h5 (after every epoch, and on Ctrl-C) and the
// checkpoint section's files; then the test split is evaluated, and the model saved as
// output.save_model (a .keras file) when the run asks.
TrainResult train(const Config& run, const TrainOptions& options = {});

// A model built from the run and loaded from `weights` (a weights file or a checkpoint),
// compiled as the run says, or the whole model of a .keras file in place of the run's (compiled
// as saved), and the run's data: for `kiln evaluate` and `kiln predict`.
struct LoadedRun {
  std::shared_ptr<Model> model;
  std::map<std::string, double> test_scores;
};
LoadedRun evaluate(const Config& run, const std::string& weights);

// The model's predictions for `input` (one batch of the model's input; any number of rows), with
// the weights from `weights`: `kiln predict`.
Tensor predict(const Config& run, const std::string& weights, const Tensor& input);

// "test_loss: 0.3312 - test_accuracy: 0.8846"
std::string format_scores(const std::map<std::string, double>& scores, const std::string& prefix);

}  // namespace kiln::configs
