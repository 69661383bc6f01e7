#include "kiln/training/callbacks/early_stopping.h"

#include <cstdio>

#include "kiln/training/model/model.h"

namespace kiln {

Config EarlyStopping::get_config() const {
  return write_fields(options_, EarlyStoppingOptions::fields());
}

const FieldTable<EarlyStoppingOptions>& EarlyStoppingOptions::fields() {
  using O = EarlyStoppingOptions;
  static const FieldTable<O> table{field("monitor", &O::monitor),
                                   field("min_delta", &O::min_delta),
                                   field("patience", &O::patience),
                                   field("mode", &O::mode),
                                   field("baseline", &O::baseline),
                                   field("restore_best_weights", &O::restore_best_weights),
                                   field("start_from_epoch", &O::start_from_epoch),
                                   field("verbose", &O::verbose)};
  return table;
}

EarlyStopping::EarlyStopping(EarlyStoppingOptions options)
    : options_(std::move(options)),
      monitor_(options_.monitor, parse_monitor_mode(options_.mode), options_.min_delta) {}

void EarlyStopping::on_train_begin(const Logs&) {
  wait_ = 0;
  stopped_epoch_ = -1;
  best_epoch_ = -1;
  // Keras 3 starts from the worst value: a baseline only decides whether patience restarts, so
  // the best epoch (and its weights) is found even when none beats the baseline.
  best_ = monitor_.worst();
  best_weights_.clear();
}

void EarlyStopping::on_epoch_end(int epoch, Logs& logs) {
  const std::optional<double> current = monitor_.value(logs, "EarlyStopping");
  if (!current || epoch < options_.start_from_epoch) return;
  if (options_.restore_best_weights && best_weights_.empty()) {
    best_weights_ = model().get_weights();  // so there is something to restore
    best_epoch_ = epoch;
  }
  ++wait_;
  if (monitor_.improves(*current, best_)) {
    best_ = *current;
    best_epoch_ = epoch;
    if (options_.restore_best_weights) best_weights_ = model().get_weights();
    // A baseline must be beaten before patience starts counting down (Keras's rule).
    if (!options_.baseline || monitor_.improves(*current, *options_.baseline)) wait_ = 0;
    return;
  }
  if (wait_ >= options_.patience && epoch > 0) {
    stopped_epoch_ = epoch;
    model().stop_training = true;
    if (options_.verbose > 0) std::printf("Epoch %d: early stopping\n", epoch + 1);
  }
}

void EarlyStopping::on_train_end(const Logs&) {
  // Keras 3 restores the best weights whenever it has them, stopped early or not.
  if (!options_.restore_best_weights || best_weights_.empty()) return;
  if (options_.verbose > 0)
    std::printf("Restoring model weights from the end of the best epoch: %d.\n", best_epoch_ + 1);
  model().set_weights(best_weights_);
}

}  // namespace kiln
