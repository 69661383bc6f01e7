#pragma once
// The callbacks `kiln train` adds to every run: the run directory's latest checkpoint (each
// epoch, and when Ctrl-C asks training to stop), and resuming from a checkpoint.
#include <atomic>
#include <string>

#include "kiln/training/callbacks/callback.h"

namespace kiln::configs {

// Set when Ctrl-C asks training to stop (configs/interrupt_watch.h); read at each batch's end.
std::atomic<bool>& interrupt_requested();

// Writes `path` (a full checkpoint with the run's config) after every epoch; when
// interrupt_requested() turns true it writes one after the current batch and stops fit.
class LatestCheckpoint : public Callback {
 public:
  LatestCheckpoint(std::string path, std::string run_config)
      : path_(std::move(path)), run_config_(std::move(run_config)) {}
  void on_epoch_begin(int epoch, const Logs&) override { epoch_ = epoch; }
  void on_train_batch_end(int64_t batch, const Logs&) override;
  void on_epoch_end(int epoch, Logs&) override;
  bool reads_train_batch_logs() const override { return false; }
  bool interrupted() const { return interrupted_; }

 private:
  std::string path_;
  std::string run_config_;
  int epoch_ = 0;
  bool interrupted_ = false;
};

// Restores a checkpoint when fit starts and continues at the epoch and batch it records; the
// run's log (`log_csv`, before its CSVLogger opens it) loses the rows of the epochs trained
// again, so each epoch has one row.
class ResumeFrom : public Callback {
 public:
  ResumeFrom(std::string path, std::string log_csv)
      : path_(std::move(path)), log_csv_(std::move(log_csv)) {}
  void on_train_begin(const Logs&) override;
  bool reads_train_batch_logs() const override { return false; }

 private:
  std::string path_;
  std::string log_csv_;
};

}  // namespace kiln::configs
