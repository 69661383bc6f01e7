#include "kiln/training/callbacks/simple_callbacks.h"

#include <cmath>
#include <cstdio>

#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {

void LearningRateScheduler::on_epoch_begin(int epoch, const Logs&) {
  optimizers::Optimizer& optimizer = model().trainer().optimizer();
  const double rate = schedule_(epoch, optimizer.learning_rate());
  optimizer.set_learning_rate(rate);
  if (verbose_ > 0)
    std::printf("\nEpoch %d: LearningRateScheduler setting learning rate to %g.\n", epoch + 1,
                rate);
}

void LearningRateScheduler::on_epoch_end(int, Logs& logs) {
  log_learning_rate(model(), logs);
}

void TerminateOnNaN::on_train_batch_end(int64_t batch, const Logs& logs) {
  const auto it = logs.find("loss");
  if (it == logs.end() || std::isfinite(it->second)) return;
  std::printf("Batch %lld: Invalid loss, terminating training\n", static_cast<long long>(batch));
  model().stop_training = true;
}

void LambdaCallback::on_epoch_begin(int epoch, const Logs& logs) {
  if (hooks_.on_epoch_begin) hooks_.on_epoch_begin(epoch, logs);
}
void LambdaCallback::on_epoch_end(int epoch, Logs& logs) {
  if (hooks_.on_epoch_end) hooks_.on_epoch_end(epoch, logs);
}
void LambdaCallback::on_train_batch_begin(int64_t batch, const Logs& logs) {
  if (hooks_.on_train_batch_begin) hooks_.on_train_batch_begin(batch, logs);
}
void LambdaCallback::on_train_batch_end(int64_t batch, const Logs& logs) {
  if (hooks_.on_train_batch_end) hooks_.on_train_batch_end(batch, logs);
}
void LambdaCallback::on_train_begin(const Logs& logs) {
  if (hooks_.on_train_begin) hooks_.on_train_begin(logs);
}
void LambdaCallback::on_train_end(const Logs& logs) {
  if (hooks_.on_train_end) hooks_.on_train_end(logs);
}

}  // namespace kiln
