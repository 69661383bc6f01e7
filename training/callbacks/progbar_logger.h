#pragma once
// The progress bar fit / evaluate / predict print (Keras 3's look):
//   Epoch 1/5
//   469/469 ━━━━━━━━━━━━━━━━━━━━ 2s 4ms/step - accuracy: 0.8512 - loss: 0.4213
// verbose 1 redraws one line per batch (for terminals); verbose 2 prints one line per epoch.
#include <chrono>
#include <cstdio>
#include <string>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

class ProgbarLogger : public Callback {
 public:
  explicit ProgbarLogger(std::FILE* out = stdout) : out_(out) {}

  void on_train_begin(const Logs&) override { mode_ = Mode::train; }
  bool chief_only() const override { return true; }
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  // A live bar (verbose 1) shows each step's logs; one line per epoch needs none.
  bool reads_train_batch_logs() const override { return params().verbose == 1; }
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_test_begin(const Logs&) override;
  void on_test_batch_end(int64_t batch, const Logs& logs) override;
  void on_test_end(const Logs& logs) override;
  void on_predict_begin(const Logs&) override;
  void on_predict_batch_end(int64_t batch, const Logs& logs) override;
  void on_predict_end(const Logs& logs) override;

  // The line for `done` of `target` steps after `seconds` (exposed for tests).
  static std::string format_line(int64_t done, int64_t target, double seconds, const Logs& logs,
                                 bool finished, bool color);

 private:
  enum class Mode { train, test, predict };
  void start();
  void update(int64_t done, const Logs& logs, bool finished);

  std::FILE* out_;
  Mode mode_ = Mode::train;
  bool inner_ = false;  // an evaluation inside fit (validation) prints nothing
  std::chrono::steady_clock::time_point start_;
  int64_t seen_ = 0;
};

}  // namespace kiln
