#pragma once
// keras.callbacks.CSVLogger: one CSV row per epoch ("epoch" then the logs' keys, sorted).
#include <cstdio>
#include <string>
#include <vector>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

class CSVLogger : public Callback {
 public:
  explicit CSVLogger(std::string filename, char separator = ',', bool append = false);
  ~CSVLogger() override;
  bool reads_train_batch_logs() const override { return false; }
  CSVLogger(const CSVLogger&) = delete;
  CSVLogger& operator=(const CSVLogger&) = delete;

  void on_train_begin(const Logs&) override;
  bool chief_only() const override { return true; }
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_end(const Logs&) override;

 private:
  std::string filename_;
  char separator_;
  bool append_;
  std::FILE* file_ = nullptr;
  std::vector<std::string> keys_;
};

}  // namespace kiln
