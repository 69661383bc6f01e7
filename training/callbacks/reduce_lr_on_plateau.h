#pragma once
// keras.callbacks.ReduceLROnPlateau: multiplies the learning rate by `factor` when the monitored
// value has not improved for `patience` epochs. The rate is a variable, so nothing retraces.
#include <string>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/callbacks/monitor.h"

namespace kiln {

struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";
  double factor = 0.1;
  int patience = 10;
  std::string mode = "auto";
  double min_delta = 1e-4;
  int cooldown = 0;
  double min_lr = 0;
  int verbose = 0;

  // Keras's keys for these fields (a YAML run's ReduceLROnPlateau arguments).
  static const FieldTable<ReduceLROnPlateauOptions>& fields();
};

class ReduceLROnPlateau : public Callback {
 public:
  explicit ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});
  Config get_config() const override;
  void on_train_begin(const Logs&) override;
  bool reads_train_batch_logs() const override { return false; }
  void on_epoch_end(int epoch, Logs& logs) override;

 private:
  ReduceLROnPlateauOptions options_;
  Monitor monitor_;
  double best_ = 0;
  int wait_ = 0;
  int cooldown_left_ = 0;
};

}  // namespace kiln
