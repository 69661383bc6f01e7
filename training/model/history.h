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

  void on_train_begin(const Logs&) override { epoch.clear(); }
  bool reads_train_batch_logs() const override { return false; }
  void on_epoch_end(int e, Logs& logs) override {
    epoch.push_back(e);
    for (const auto& [name, value] : logs) history[name].push_back(value);
  }
};

}  // namespace kiln
