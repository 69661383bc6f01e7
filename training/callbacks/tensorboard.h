#pragma once
// keras.callbacks.TensorBoard: event files TensorBoard reads (`tensorboard --logdir <log_dir>`).
//
//   <log_dir>/train/       epoch_<name> scalars of the training logs at each epoch (loss,
//                          metrics, learning_rate, steps_per_second when asked), batch_<name>
//                          every update_freq batches (counted from the optimizer's steps), <weight
//                          path>/histogram every histogram_freq epochs, and the traced train step's
//                          graph
//   <log_dir>/validation/  epoch_<name> of the validation logs (val_ stripped), and
//                          evaluation_<name>_vs_iterations after each evaluation
//
// As Keras's, it runs on the chief alone in data-parallel training.
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/framework/core/config_fields.h"
#include "kiln/training/callbacks/callback.h"

namespace kiln {

namespace tensorboard {
class EventWriter;
}

struct TensorBoardOptions {
  // Every this many epochs, a histogram of each weight (0: none).
  int histogram_freq = 0;
  bool write_graph = true;
  bool write_steps_per_second = false;
  // 0: scalars per epoch only (Keras's "epoch"); N: also the logs of every N-th training batch
  // as batch_<name> (1 is Keras's "batch").
  int64_t update_freq = 0;

  // The YAML / Keras config fields (update_freq "epoch", "batch" or N), with the Keras
  // arguments kiln does not implement accepted only at their defaults (write_images,
  // profile_batch, embeddings_freq, embeddings_metadata).
  static const FieldTable<TensorBoardOptions>& fields();
};

class TensorBoard : public Callback {
 public:
  explicit TensorBoard(std::string log_dir = "logs", TensorBoardOptions options = {});
  Config get_config() const override;
  ~TensorBoard() override;
  TensorBoard(const TensorBoard&) = delete;
  TensorBoard& operator=(const TensorBoard&) = delete;

  bool chief_only() const override { return true; }
  bool reads_train_batch_logs() const override { return options_.update_freq > 0; }

  void on_train_begin(const Logs&) override;
  void on_train_batch_begin(int64_t batch, const Logs&) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_epoch_begin(int epoch, const Logs&) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  void on_test_end(const Logs& logs) override;
  void on_train_end(const Logs&) override;

  const std::string& log_dir() const { return log_dir_; }

 private:
  tensorboard::EventWriter& train_writer();
  tensorboard::EventWriter& validation_writer();
  void log_weights(int epoch);

  std::string log_dir_;
  TensorBoardOptions options_;
  int64_t batch_step_ = 0;   // batches trained, counted from the optimizer's steps at fit's start
  int64_t group_begin_ = 0;  // the first batch (of its epoch) of the call running now
  bool graph_pending_ = false;
  int64_t epoch_start_iterations_ = 0;
  double epoch_start_seconds_ = 0;
  std::unique_ptr<tensorboard::EventWriter> train_;
  std::unique_ptr<tensorboard::EventWriter> validation_;
};

}  // namespace kiln
