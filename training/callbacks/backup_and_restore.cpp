#include "kiln/training/callbacks/backup_and_restore.h"

#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/training/callbacks/save_freq.h"
#include "kiln/training/model/model.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln {

Config BackupAndRestore::get_config() const {
  return write_fields(options_, BackupAndRestoreOptions::fields(),
                      Config::map().set("backup_dir", backup_dir_));
}

const FieldTable<BackupAndRestoreOptions>& BackupAndRestoreOptions::fields() {
  using O = BackupAndRestoreOptions;
  static const FieldTable<O> table{save_freq_field(&O::save_freq),
                                   field("delete_checkpoint", &O::delete_checkpoint)};
  return table;
}

BackupAndRestore::BackupAndRestore(std::string backup_dir, BackupAndRestoreOptions options)
    : options_(options), backup_dir_(backup_dir) {
  KILN_CHECK(!backup_dir.empty(), "BackupAndRestore: backup_dir must not be empty");
  KILN_CHECK(options_.save_freq >= 0, "BackupAndRestore: save_freq must be 0 (each epoch) or a ",
             "number of batches, got ", options_.save_freq);
  path_ = (std::filesystem::path(backup_dir) / "latest.checkpoint.h5").string();
}

void BackupAndRestore::on_train_begin(const Logs&) {
  batches_since_save_ = 0;
  if (!std::filesystem::exists(path_)) return;
  const saving::TrainingState state = saving::load_checkpoint(model().checkpoint_contents(), path_);
  log(LogLevel::info, "BackupAndRestore: resuming from ", path_, " at epoch ", state.epoch + 1,
      ", batch ", state.step);
  model().resume_fit_at(state.epoch, state.step);
}

void BackupAndRestore::on_epoch_begin(int epoch, const Logs&) {
  epoch_ = epoch;
}

void BackupAndRestore::on_train_batch_end(int64_t batch, const Logs&) {
  if (options_.save_freq == 0 || ++batches_since_save_ < options_.save_freq) return;
  batches_since_save_ = 0;
  save(epoch_, batch + 1);
}

void BackupAndRestore::on_epoch_end(int epoch, Logs&) {
  if (options_.save_freq == 0) save(epoch + 1, 0);
}

void BackupAndRestore::on_train_end(const Logs&) {
  if (!options_.delete_checkpoint || !model().is_chief()) return;
  std::filesystem::remove(path_);
  // The backup directory goes too, as in Keras, but only when nothing else is in it.
  std::error_code not_empty;
  std::filesystem::remove(backup_dir_, not_empty);
}

void BackupAndRestore::save(int epoch, int64_t step) const {
  // Every replica restores from the backup; the chief alone writes it (the state is global).
  if (!model().is_chief()) return;
  // Made when a backup is saved, not when the callback is built (`kiln validate` builds it too).
  std::filesystem::create_directories(backup_dir_);
  saving::save_checkpoint(model().checkpoint_contents(), path_, {epoch, step}, options_.run_config);
}

}  // namespace kiln
