#pragma once
// What every example shares: its command line (--epochs, --limit for CI's small slice,
// --require-accuracy), Fashion-MNIST loading, the compile / fit / evaluate sequence, per-epoch
// wall times (benchmarks read them) and the closing report.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kiln/datasets/fashion_mnist.h"
#include "kiln/training/callbacks/callback.h"
#include "kiln/training/model/compile_options.h"
#include "kiln/training/model/model.h"

namespace kiln::examples {

struct ExampleOptions {
  int epochs = 5;
  int64_t batch_size = 128;
  double learning_rate = 0.001;
  int64_t limit = 0;  // train on the first `limit` images and test on a sixth as many; 0 = all
  double validation_split = 0;  // the last fraction of the training images, held out
  uint64_t seed = 42;
  double require_accuracy = 0;  // exit with status 2 when the test accuracy is lower
  bool run_eagerly = false;     // run the train step op by op (debugging, comparison)
  bool show_graph = false;      // print the optimized train step graph after training
  std::string data_dir = datasets::default_fashion_mnist_dir();
  std::string model;  // which model an example that offers several builds (--model)
  // The layers' dtype policy (keras.config.set_dtype_policy): "mixed_bfloat16" computes in
  // bfloat16 on float32 weights.
  std::string dtype_policy = "float32";
};

// Fashion-MNIST, cut to options.limit.
datasets::FashionMnist load_data(const ExampleOptions& options);

// Wall time of each epoch (training and validation), as fit runs.
class EpochTimer : public Callback {
 public:
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, Logs& logs) override;
  bool reads_train_batch_logs() const override { return false; }
  const std::vector<double>& seconds() const { return seconds_; }

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> seconds_;
};

// What the examples compile with: Adam at options.learning_rate, sparse categorical
// crossentropy on logits, accuracy.
CompileOptions classifier_options(const ExampleOptions& options);

// Fits `model` on (train_x, train_y) (holding out options.validation_split), evaluates it on the
// test set and prints the test scores, the epoch times and the train step's trace counters. Returns
// the exit status: 2 when the accuracy misses options.require_accuracy.
int fit_and_report(Model& model, const std::vector<Tensor>& train_x, const Tensor& train_y,
                   const std::vector<Tensor>& test_x, const Tensor& test_y,
                   const ExampleOptions& options);

// Prints the test scores, the epoch times and the train step's trace counters (and its graph
// with --show-graph); returns 2 when the accuracy misses options.require_accuracy, else 0.
int report(Model& model, const std::map<std::string, double>& scores, const EpochTimer& timer,
           const ExampleOptions& options);

// Parses the command line (the options above as --epochs, --batch-size, --learning-rate,
// --limit, --validation-split, --seed, --data, --model, --dtype-policy, --require-accuracy,
// --run-eagerly, --show-graph), seeds kiln's random generator, sets the global dtype policy and
// runs `body`; errors print as "<program>:
// <message>" with exit status 1.
int run_example(int argc, char** argv, ExampleOptions defaults,
                const std::function<int(const ExampleOptions&)>& body);

}  // namespace kiln::examples
