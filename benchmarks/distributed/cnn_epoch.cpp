// One epoch of the Fashion-MNIST CNN (configs/fashion_mnist_cnn.yaml's layers, 28x28 images,
// global batch 128) as the replicas of MultiWorkerMirroredStrategy: run under mpirun -np 1 and
// -np 2 with one thread per rank (benchmarks/distributed/run.sh), it gives the scaling from 1 to
// 2 processes. The first epoch traces and warms up; the second is timed, then predict over the
// same images (its second call; a process predicts every row, MirroredStrategy's threads split
// each batch). Rank 0 prints "epoch_seconds <s> predict_seconds <s>". --no-overlap reduces the
// gradients after the whole backward pass;
// --bucket-kb=N sets the gradient bucket size (default 25 MB: all the CNN's 0.86 MB in one);
// --mirrored=cpu,cpu trains as MirroredStrategy over those devices instead, a thread per replica
// in this one process.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/losses/losses.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/distribute/strategy.h"
#include "kiln/training/model/sequential.h"

int main(int argc, char** argv) {
  using namespace kiln;
  using namespace kiln::layers;
  bool overlap = true;
  int64_t bucket_kb = 0;
  std::vector<std::string> mirrored;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-overlap") == 0) overlap = false;
    if (std::strncmp(argv[i], "--bucket-kb=", 12) == 0) bucket_kb = std::atoll(argv[i] + 12);
    if (std::strncmp(argv[i], "--mirrored=", 11) == 0) {
      std::stringstream list(argv[i] + 11);
      for (std::string device; std::getline(list, device, ',');) mirrored.push_back(device);
    }
  }
  set_log_level(LogLevel::warning);
  const distribute::StrategyPtr strategy = mirrored.empty()
                                               ? distribute::make_strategy("multi_worker", {"cpu"})
                                               : distribute::make_strategy("mirrored", mirrored);
  strategy->set_overlap(overlap);
  if (bucket_kb > 0) strategy->set_bucket_bytes(bucket_kb << 10);

  constexpr int64_t kRows = 128 * 60;
  random::Generator gen(3);
  const Tensor x = random::uniform({kRows, 28, 28}, 0, 1, DType::f32, gen, Device::cpu());
  const Tensor y =
      ops::cast(random::uniform({kRows}, 0, 10, DType::f32, gen, Device::cpu()), DType::i64);
  random::set_seed(7);
  Sequential model({Input({28, 28}), Reshape(Shape({28, 28, 1})),
                    Conv2D(32, {3, 3}, {.activation = "relu"}), MaxPooling2D(),
                    Conv2D(64, {3, 3}, {.activation = "relu"}), MaxPooling2D(), Flatten(),
                    Dense(128, {.activation = "relu"}), Dropout(0.3), Dense(10)});
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .metrics = {"accuracy"},
                 .strategy = strategy});
  std::chrono::steady_clock::time_point begin;
  double seconds = 0;
  auto timer = std::make_shared<LambdaCallback>(LambdaCallbackHooks{
      .on_epoch_begin = [&](int, const Logs&) { begin = std::chrono::steady_clock::now(); },
      .on_epoch_end =
          [&](int, const Logs&) {
            seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
          }});
  model.fit(x, y, {.batch_size = 128, .epochs = 2, .verbose = 0, .callbacks = {timer}});
  double predict_seconds = 0;
  for (int call = 0; call < 2; ++call) {
    begin = std::chrono::steady_clock::now();
    model.predict(x, {.batch_size = 128, .verbose = 0});
    predict_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }
  if (strategy->is_chief())
    std::printf(
        "replicas %d (%s) overlap %s bucket_bytes %lld epoch_seconds %.3f predict_seconds %.3f\n",
        strategy->num_replicas_in_sync(),
        strategy->replica_threads() != nullptr ? "threads" : "processes", overlap ? "on" : "off",
        static_cast<long long>(strategy->bucket_bytes()), seconds, predict_seconds);
  return 0;
}
