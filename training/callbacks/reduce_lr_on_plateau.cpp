#include "kiln/training/callbacks/reduce_lr_on_plateau.h"

#include <algorithm>
#include <cstdio>

#include "kiln/framework/core/error.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {

Config ReduceLROnPlateau::get_config() const {
  return write_fields(options_, ReduceLROnPlateauOptions::fields());
}

const FieldTable<ReduceLROnPlateauOptions>& ReduceLROnPlateauOptions::fields() {
  using O = ReduceLROnPlateauOptions;
  static const FieldTable<O> table{
      field("monitor", &O::monitor),     field("factor", &O::factor),
      field("patience", &O::patience),   field("mode", &O::mode),
      field("min_delta", &O::min_delta), field("cooldown", &O::cooldown),
      field("min_lr", &O::min_lr),       field("verbose", &O::verbose)};
  return table;
}

ReduceLROnPlateau::ReduceLROnPlateau(ReduceLROnPlateauOptions options)
    : options_(std::move(options)),
      monitor_(options_.monitor, parse_monitor_mode(options_.mode), options_.min_delta) {
  KILN_CHECK(options_.factor < 1, "ReduceLROnPlateau: factor must be < 1, got ", options_.factor);
}

void ReduceLROnPlateau::on_train_begin(const Logs&) {
  best_ = monitor_.worst();
  wait_ = 0;
  cooldown_left_ = 0;
}

void ReduceLROnPlateau::on_epoch_end(int epoch, Logs& logs) {
  log_learning_rate(model(), logs);  // the rate this epoch trained at, before any cut
  const std::optional<double> current = monitor_.value(logs, "ReduceLROnPlateau");
  if (!current) return;
  if (cooldown_left_ > 0) {
    --cooldown_left_;
    wait_ = 0;
  }
  if (monitor_.improves(*current, best_)) {
    best_ = *current;
    wait_ = 0;
    return;
  }
  if (cooldown_left_ > 0 || ++wait_ < options_.patience) return;
  optimizers::Optimizer& optimizer = model().trainer().optimizer();
  const double old_lr = optimizer.learning_rate();
  if (old_lr > options_.min_lr) {
    const double new_lr = std::max(old_lr * options_.factor, options_.min_lr);
    optimizer.set_learning_rate(new_lr);
    if (options_.verbose > 0)
      std::printf("\nEpoch %d: ReduceLROnPlateau reducing learning rate to %g.\n", epoch + 1,
                  new_lr);
    cooldown_left_ = options_.cooldown;
    wait_ = 0;
  }
}

}  // namespace kiln
