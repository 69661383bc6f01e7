#pragma once
// keras.callbacks.CSVLogger: one CSV row per epoch ("epoch" then the logs' keys, sorted). A row
// that cannot be written (a full disk) is an error.
#include <cstdio>
#include <string>
#include <vector>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

// Rewrites a CSVLogger's file (atomically) without the rows of epochs from `epoch` on: a run
// resumed from the checkpoint of `epoch` epochs logs those again, and a run killed between an
// epoch's row and its checkpoint had already written one. No file: nothing to do.
void drop_csv_rows_from(const std::string& path, int epoch, char separator = ',');

class CSVLogger : public Callback {
 public:
  explicit CSVLogger(std::string filename, char separator = ',', bool append = false);
  Config get_config() const override;
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
