#pragma once
// keras.callbacks.EarlyStopping: ends fit when the monitored value stops improving for
// `patience` epochs, optionally restoring the weights of the best epoch.
#include <string>
#include <vector>

#include "kiln/framework/core/config_fields.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/training/callbacks/monitor.h"

namespace kiln {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0;
  int patience = 0;
  std::string mode = "auto";
  std::optional<double> baseline = std::nullopt;
  bool restore_best_weights = false;
  int start_from_epoch = 0;
  int verbose = 0;  // 1: a line when it stops fit and when it restores weights, as Keras

  // Keras's keys for these fields (a YAML run's EarlyStopping arguments).
  static const FieldTable<EarlyStoppingOptions>& fields();
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  Config get_config() const override;

  void on_train_begin(const Logs&) override;
  bool reads_train_batch_logs() const override { return false; }
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_end(const Logs&) override;

  int stopped_epoch() const { return stopped_epoch_; }  // -1 when it did not stop fit
  int best_epoch() const { return best_epoch_; }

 private:
  EarlyStoppingOptions options_;
  Monitor monitor_;
  double best_ = 0;
  int wait_ = 0;
  int best_epoch_ = -1;
  int stopped_epoch_ = -1;
  std::vector<Tensor> best_weights_;
};

}  // namespace kiln
