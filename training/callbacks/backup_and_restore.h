#pragma once
// keras.callbacks.BackupAndRestore: a run that is killed (SIGKILL, a lost machine) and started
// again with the same callback continues where its last backup left off, with the same weights,
// optimizer state, random streams and data order as if it had never stopped.
//
//   model.fit(data, {.epochs = 10, .callbacks = {std::make_shared<BackupAndRestore>("backup")}});
//
// The backup is one checkpoint (training/saving/checkpoint.h), <backup_dir>/latest.checkpoint.h5,
// replaced atomically at each save and deleted when training ends normally.
#include <cstdint>
#include <string>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/callbacks/callback.h"

namespace kiln {

struct BackupAndRestoreOptions {
  // 0: at the end of every epoch (Keras's "epoch"); N > 0: every N training batches.
  int64_t save_freq = 0;
  bool delete_checkpoint = true;  // remove the backup once fit completes
  // The run description (JSON) stored in the backup; kiln's YAML runs pass theirs.
  std::string run_config{};

  // Keras's keys for these fields (run_config is the run's, not a key).
  static const FieldTable<BackupAndRestoreOptions>& fields();
};

class BackupAndRestore : public Callback {
 public:
  explicit BackupAndRestore(std::string backup_dir, BackupAndRestoreOptions options = {});
  Config get_config() const override;

  void on_train_begin(const Logs&) override;
  bool reads_train_batch_logs() const override { return false; }
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_train_batch_end(int64_t batch, const Logs&) override;
  void on_epoch_end(int epoch, Logs&) override;
  void on_train_end(const Logs&) override;

  const std::string& path() const { return path_; }

 private:
  void save(int epoch, int64_t step) const;

  std::string path_;
  BackupAndRestoreOptions options_;
  std::string backup_dir_;
  int epoch_ = 0;
  int64_t batches_since_save_ = 0;
};

}  // namespace kiln
