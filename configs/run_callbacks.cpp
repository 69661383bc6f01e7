#include "kiln/configs/run_callbacks.h"

#include "kiln/framework/core/log.h"
#include "kiln/training/callbacks/csv_logger.h"
#include "kiln/training/model/model.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln::configs {

std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

void LatestCheckpoint::on_train_batch_end(int64_t batch, const Logs&) {
  if (!interrupt_requested().load() || interrupted_) return;
  interrupted_ = true;
  // Every replica stops; the chief writes the (global) state.
  if (model().is_chief())
    saving::save_checkpoint(model().checkpoint_contents(), path_, {epoch_, batch + 1}, run_config_);
  log(LogLevel::warning, "interrupted: wrote ", path_, " (epoch ", epoch_ + 1, ", batch ",
      batch + 1, "); `kiln train --resume` continues from it");
  model().stop_training = true;
}

void LatestCheckpoint::on_epoch_end(int epoch, Logs&) {
  if (!interrupted_ && model().is_chief())
    saving::save_checkpoint(model().checkpoint_contents(), path_, {epoch + 1, 0}, run_config_);
}

void ResumeFrom::on_train_begin(const Logs&) {
  const saving::TrainingState state = saving::load_checkpoint(model().checkpoint_contents(), path_);
  log(LogLevel::info, "resuming from ", path_, " at epoch ", state.epoch + 1, ", batch ",
      state.step);
  model().resume_fit_at(state.epoch, state.step);
  if (model().is_chief()) drop_csv_rows_from(log_csv_, state.epoch);
}

}  // namespace kiln::configs
