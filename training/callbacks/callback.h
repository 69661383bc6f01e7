#pragma once
// keras.callbacks.Callback: hooks fit / evaluate / predict call at the start and end of training,
// epochs and batches. Logs carry the running loss and metrics by name ("loss", "accuracy", and
// "val_..." at epoch ends).
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "kiln/framework/core/config.h"

namespace kiln {

class Model;

using Logs = std::map<std::string, double>;

// What the running loop tells its callbacks (Keras's callback.params).
struct CallbackParams {
  int epochs = 1;
  int64_t steps = -1;  // batches per epoch (or evaluate/predict pass); -1 when unknown
  int verbose = 1;
};

class Callback {
 public:
  virtual ~Callback() = default;

  void set_model(Model* model) { model_ = model; }
  void set_params(const CallbackParams& params) { params_ = params; }
  Model& model() const;
  const CallbackParams& params() const { return params_; }

  virtual void on_train_begin(const Logs&) {}
  virtual void on_train_end(const Logs&) {}
  virtual void on_epoch_begin(int /*epoch*/, const Logs&) {}
  // The epoch's logs, which a callback may add to as Keras's do: fit calls the user's callbacks
  // first, then History and the progress bar, which record what they added.
  virtual void on_epoch_end(int /*epoch*/, Logs&) {}
  virtual void on_train_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_train_batch_end(int64_t /*batch*/, const Logs&) {}
  // Whether on_train_batch_end reads its logs. fit reads a step's loss and metrics to the host,
  // which waits for a GPU to finish the step, only when some callback does; the others get
  // empty logs there (every callback gets the epoch's at its end).
  virtual bool reads_train_batch_logs() const { return true; }
  // Whether the callback only reports or writes files (progress, logs, checkpoints): in
  // data-parallel training such callbacks run on the chief (rank 0) alone, as Keras's write
  // only there; the others run on every replica, whose logs are the same global figures.
  virtual bool chief_only() const { return false; }
  virtual void on_test_begin(const Logs&) {}
  virtual void on_test_end(const Logs&) {}
  virtual void on_test_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_test_batch_end(int64_t /*batch*/, const Logs&) {}
  virtual void on_predict_begin(const Logs&) {}
  virtual void on_predict_end(const Logs&) {}
  virtual void on_predict_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_predict_batch_end(int64_t /*batch*/, const Logs&) {}

  // The arguments it was made with, as a run file gives them (training/callbacks/registry.h
  // makes it again from them); {} for one made in C++ only (a LambdaCallback).
  virtual Config get_config() const { return Config::map(); }

 private:
  Model* model_ = nullptr;
  CallbackParams params_;
};

using CallbackPtr = std::shared_ptr<Callback>;

// Sets logs["learning_rate"] to the model's optimizer's rate, as Keras's learning-rate callbacks
// do at an epoch's end.
void log_learning_rate(Model& model, Logs& logs);

}  // namespace kiln
