#pragma once
// keras.callbacks.ModelCheckpoint: saves the model during fit, at each epoch's end or every
// save_freq batches, to a file name filled from a template ("ckpt-{epoch:02d}-{val_loss:.4f}.h5":
// epoch counts from 1, batch too, the rest are the logs), optionally only when the monitored value
// improves. A name ending in .weights.h5 (required with save_weights_only) gets the weights
// (training/saving/weights_file.h); any other .h5 name a full checkpoint with the optimizer and
// random state (training/saving/checkpoint.h). Every write is atomic.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/callbacks/monitor.h"

namespace kiln {

struct ModelCheckpointOptions {
  std::string monitor = "val_loss";
  int verbose = 0;  // 1: a line per save
  bool save_best_only = false;
  bool save_weights_only = false;
  std::string mode = "auto";
  int64_t save_freq = 0;  // 0: at the end of every epoch (Keras's "epoch"); N > 0: every N batches
  std::optional<double> initial_value_threshold = std::nullopt;
  // Keeps only the newest keep_last files this callback wrote (0: all); not a Keras option.
  int keep_last = 0;
  // The run description (JSON) stored in every full checkpoint; kiln's YAML runs pass theirs.
  std::string run_config{};

  // Keras's keys for these fields and keep_last (run_config is the run's, not a key).
  static const FieldTable<ModelCheckpointOptions>& fields();
};

class ModelCheckpoint : public Callback {
 public:
  explicit ModelCheckpoint(std::string filepath, ModelCheckpointOptions options = {});
  Config get_config() const override;

  void on_train_begin(const Logs&) override;
  bool chief_only() const override { return true; }
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  bool reads_train_batch_logs() const override { return options_.save_freq > 0; }
  void on_epoch_end(int epoch, Logs& logs) override;

  // The best monitored value so far (save_best_only), and the last file written ("" for none).
  double best() const { return best_; }
  const std::string& last_saved() const { return last_saved_; }

 private:
  // Saves unless save_best_only and `logs` show no improvement; state says where training stands.
  void save(int epoch, int64_t batch, int next_epoch, int64_t next_step, const Logs& logs);

  std::string filepath_;
  ModelCheckpointOptions options_;
  Monitor monitor_;
  bool weights_only_;
  double best_ = 0;
  int epoch_ = 0;
  int64_t batches_since_save_ = 0;
  std::string last_saved_;
  std::deque<std::string> saved_;  // oldest first, for keep_last
};

}  // namespace kiln
