#pragma once
// keras.callbacks.History: every epoch's logs, by name; what fit returns.
#include <map>
#include <string>
#include <vector>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

class History : public Callback {
 public:
  std::map<std::string, std::vector<double>> history;
  std::vector<int> epoch;
  // kiln's, not a Keras log: per epoch, the fraction of its training time fit spent waiting for
  // the next batch (an input pipeline that keeps up waits near 0).
  std::vector<double> input_wait;

  void on_train_begin(const Logs&) override {
    epoch.clear();
    input_wait.clear();
  }
  bool reads_train_batch_logs() const override { return false; }
  void on_epoch_end(int e, Logs& logs) override {
    epoch.push_back(e);
    for (const auto& [name, value] : logs) history[name].push_back(value);
  }
};

}  // namespace kiln
