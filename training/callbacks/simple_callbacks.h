#pragma once
// Small Keras callbacks: LearningRateScheduler, TerminateOnNaN and LambdaCallback.
#include <functional>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

// keras.callbacks.LearningRateScheduler: sets the rate from schedule(epoch, current rate) at the
// start of every epoch (a variable write: no retrace).
class LearningRateScheduler : public Callback {
 public:
  using Schedule = std::function<double(int epoch, double learning_rate)>;
  explicit LearningRateScheduler(Schedule schedule, int verbose = 0)
      : schedule_(std::move(schedule)), verbose_(verbose) {}
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_epoch_end(int epoch, Logs& logs) override;  // logs the epoch's learning_rate
  bool reads_train_batch_logs() const override { return false; }

 private:
  Schedule schedule_;
  int verbose_;
};

// keras.callbacks.TerminateOnNaN: stops fit at the first batch whose loss is NaN or infinite.
class TerminateOnNaN : public Callback {
 public:
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
};

// keras.callbacks.LambdaCallback: functions for the common hooks.
struct LambdaCallbackHooks {
  std::function<void(int, const Logs&)> on_epoch_begin = nullptr;
  std::function<void(int, const Logs&)> on_epoch_end = nullptr;
  std::function<void(int64_t, const Logs&)> on_train_batch_begin = nullptr;
  std::function<void(int64_t, const Logs&)> on_train_batch_end = nullptr;
  std::function<void(const Logs&)> on_train_begin = nullptr;
  std::function<void(const Logs&)> on_train_end = nullptr;
};

class LambdaCallback : public Callback {
 public:
  explicit LambdaCallback(LambdaCallbackHooks hooks) : hooks_(std::move(hooks)) {}
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_train_batch_begin(int64_t batch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_train_begin(const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  bool reads_train_batch_logs() const override { return hooks_.on_train_batch_end != nullptr; }

 private:
  LambdaCallbackHooks hooks_;
};

}  // namespace kiln
