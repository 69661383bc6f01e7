// Trains a Keras-style MLP on Fashion-MNIST: Sequential, compile, fit (traced train and test
// steps), evaluate; prints the summary, Keras's progress bar, the test accuracy and the train
// step's trace counters. (Stands in for `kiln train` until the YAML runner lands.)
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "datasets/fashion_mnist.h"
#include "engine/model/sequential.h"
#include "engine/model/trainer.h"
#include "framework/core/error.h"
#include "framework/random/random.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/reshaping/flatten.h"
#include "losses/losses.h"
#include "optimizers/registry.h"

namespace {

using kiln::layers::Dense;
using kiln::layers::Flatten;
using kiln::layers::Input;

struct Options {
  int epochs = 5;
  int64_t batch_size = 128;
  double learning_rate = 0.001;
  int64_t hidden = 512;  // the first hidden layer; the second has half
  uint64_t seed = 42;
  double require_accuracy = 0;  // exit with status 2 when the final test accuracy is lower
  bool run_eagerly = false;     // run the train step op by op (debugging, comparison)
  std::string data_dir = kiln::datasets::default_fashion_mnist_dir();
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      KILN_CHECK(i + 1 < argc, "missing value after ", arg);
      return argv[++i];
    };
    if (arg == "--epochs")
      o.epochs = std::stoi(value());
    else if (arg == "--batch-size")
      o.batch_size = std::stoll(value());
    else if (arg == "--learning-rate")
      o.learning_rate = std::stod(value());
    else if (arg == "--hidden")
      o.hidden = std::stoll(value());
    else if (arg == "--seed")
      o.seed = std::stoull(value());
    else if (arg == "--data")
      o.data_dir = value();
    else if (arg == "--require-accuracy")
      o.require_accuracy = std::stod(value());
    else if (arg == "--run-eagerly")
      o.run_eagerly = true;
    else
      throw kiln::Error("unknown option " + std::string(arg) +
                        " (options: --epochs --batch-size --learning-rate --hidden --seed --data "
                        "--require-accuracy --run-eagerly)");
  }
  return o;
}

int run(const Options& o) {
  kiln::random::set_seed(o.seed);
  const auto data = kiln::datasets::load_fashion_mnist(o.data_dir);
  std::printf("Fashion-MNIST: %lld train, %lld test images from %s\n",
              static_cast<long long>(data.train.images.dim(0)),
              static_cast<long long>(data.test.images.dim(0)), o.data_dir.c_str());

  kiln::Sequential model({Input({28, 28}), Flatten(), Dense(o.hidden, {.activation = "relu"}),
                          Dense(o.hidden / 2, {.activation = "relu"}), Dense(10)});
  std::printf("%s", model.summary().c_str());
  auto optimizer = kiln::optimizers::get("adam");
  optimizer->set_learning_rate(o.learning_rate);
  model.compile({.optimizer = optimizer,
                 .loss = std::make_shared<kiln::losses::SparseCategoricalCrossentropy>(true),
                 .metrics = {"accuracy"},
                 .run_eagerly = o.run_eagerly});
  model.fit(data.train.images, data.train.labels,
            {.batch_size = o.batch_size, .epochs = o.epochs, .validation_split = 0.1});
  const auto scores = model.evaluate(data.test.images, data.test.labels, {.batch_size = 256});
  const double test_accuracy = scores.at("accuracy");
  std::printf("test loss %.4f, test accuracy %.4f\n", scores.at("loss"), test_accuracy);
  const kiln::FunctionStats stats = model.trainer().train_stats();
  std::printf(
      "train_step: %lld calls, %lld traces, %lld plans, %.1f ms tracing, %.1f ms compiling\n",
      static_cast<long long>(stats.calls), static_cast<long long>(stats.traces),
      static_cast<long long>(stats.specializations), stats.trace_seconds * 1e3,
      stats.compile_seconds * 1e3);
  if (test_accuracy < o.require_accuracy) {
    std::fprintf(stderr, "kiln_demo: test accuracy %.4f is below the required %.4f\n",
                 test_accuracy, o.require_accuracy);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_demo: %s\n", e.what());
    return 1;
  }
}
