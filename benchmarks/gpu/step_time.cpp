// Training step time of the three reference tasks on one device, for benchmarks/gpu/compare.sh:
// the Fashion-MNIST MLP (784-512-256-10) and CNN of apps/examples (the same models as
// pytorch_steps.py), and LSTM(128) over Embedding(100, 64) on token sequences of lengths 5..200
// bucketed by length. Adam, sparse categorical crossentropy from logits, random data of the
// real shapes (the data's values do not change a step's work).
//   step_time --model mlp|cnn|lstm [--batch 128] [--device cuda:0] [--precision float32]
//             [--steps 200] [--rounds 5]
// --precision is a dtype policy's name, or tf32: float32 with TF32 tensor cores allowed. Each
// round is one epoch of `steps` batches through fit (batches copied from host memory, as a
// pipeline feeds them); the first, which traces, is not counted, nor profiled under
// KILN_PROFILE. Prints "<model> batch B <device> <precision>: ms/step M (median of R epochs),
// epoch s E".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/engine/executor/op_profiler.h"
#include "kiln/framework/core/tensor_float_32.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/conv/conv.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/layers/pooling/pooling.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/reshaping/flatten.h"
#include "kiln/layers/reshaping/reshape.h"
#include "kiln/losses/losses.h"
#include "kiln/training/model/sequential.h"

using namespace kiln;

namespace {

struct Args {
  std::string model = "mlp";
  int64_t batch = 128;
  std::string device = "cuda:0";
  std::string precision = "float32";
  int64_t steps = 200;
  int rounds = 5;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model")
      a.model = value;
    else if (key == "--batch")
      a.batch = std::atoll(value.c_str());
    else if (key == "--device")
      a.device = value;
    else if (key == "--precision")
      a.precision = value;
    else if (key == "--steps")
      a.steps = std::atoll(value.c_str());
    else if (key == "--rounds")
      a.rounds = std::atoi(value.c_str());
    else {
      std::fprintf(stderr, "step_time: unknown option %s\n", key.c_str());
      std::exit(2);
    }
  }
  return a;
}

std::vector<layers::LayerRef> layers_of(const std::string& model) {
  using layers::Dense;
  if (model == "mlp")
    return {layers::Input({28, 28}), layers::Flatten(), Dense(512, {.activation = "relu"}),
            Dense(256, {.activation = "relu"}), Dense(10)};
  if (model == "cnn")
    return {layers::Input({28, 28}),
            layers::Reshape({28, 28, 1}),
            layers::Conv2D(32, {3, 3}, {.activation = "relu"}),
            layers::MaxPooling2D(),
            layers::Conv2D(64, {3, 3}, {.activation = "relu"}),
            layers::MaxPooling2D(),
            layers::Flatten(),
            Dense(128, {.activation = "relu"}),
            Dense(10)};
  if (model == "lstm")
    return {layers::Input({-1}, DType::i32), layers::Embedding(100, 64, {.mask_zero = true}),
            layers::LSTM(128), Dense(5)};
  std::fprintf(stderr, "step_time: --model is mlp, cnn or lstm\n");
  std::exit(2);
}

// `steps` batches of host data.
datasets::Dataset data_for(const Args& a) {
  const int64_t n = a.steps * a.batch;
  if (a.model != "lstm") {
    random::Generator gen(7);
    const Tensor x = random::uniform({n, 28, 28}, 0, 1, DType::f32, gen, Device::cpu());
    const Tensor y =
        ops::cast(random::uniform({n}, 0, 10, DType::f32, gen, Device::cpu()), DType::i64);
    return datasets::Dataset::from_tensor_slices({x, y}).batch(a.batch);
  }
  std::mt19937 gen(7);
  std::uniform_int_distribution<int64_t> length(5, 200);
  std::uniform_int_distribution<int32_t> token(1, 99), label(0, 4);
  std::vector<datasets::Element> elements;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int32_t> ids(static_cast<size_t>(length(gen)));
    for (int32_t& id : ids) id = token(gen);
    const auto size = static_cast<int64_t>(ids.size());
    elements.push_back(
        {from_vector(ids, Shape({size}), DType::i32, Device::cpu()),
         from_vector(std::vector<int32_t>{label(gen)}, Shape({}), DType::i32, Device::cpu())});
  }
  return datasets::Dataset::from_elements(std::move(elements))
      .bucket_by_sequence_length(nullptr, {50, 100, 150, 201}, std::vector<int64_t>(5, a.batch),
                                 {.pad_to_bucket_boundary = true});
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  // tf32: float32 with TF32 tensor cores allowed (framework/core/tensor_float_32.h).
  const bool tf32 = a.precision == "tf32";
  layers::set_global_policy(tf32 ? "float32" : a.precision);
  enable_tensor_float_32_execution(tf32);
  random::set_seed(1);
  Sequential model(layers_of(a.model));
  layers::set_global_policy("float32");
  model.compile({.optimizer = "adam",
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
                 .device = a.device});
  const datasets::Dataset data = data_for(a).cache();
  int64_t steps = 0;  // batches in an epoch (bucketing leaves some partial)
  for (datasets::Iterator it = data.iterator(); it.next();) ++steps;
  std::vector<double> seconds;
  for (int round = 0; round <= a.rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    model.fit(data, {.epochs = round + 1, .verbose = 0, .initial_epoch = round});
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (round > 0) seconds.push_back(s);  // round 0 traces
    // A profile (KILN_PROFILE) covers the timed epochs alone: an op's first run also pays for
    // cuDNN's algorithm choice, cuBLAS's handle and loading its kernels.
    if (round == 0) engine::profiler::reset();
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  std::printf("%s batch %lld %s %s: ms/step %.3f (median of %d epochs), epoch s %.3f\n",
              a.model.c_str(), static_cast<long long>(a.batch), model.device().to_string().c_str(),
              a.precision.c_str(), 1000 * median / static_cast<double>(steps), a.rounds, median);
  return 0;
}
