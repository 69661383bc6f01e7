// What the files users exchange and look at cost, against what they replace, in one run:
//   - a training epoch with the TensorBoard callback (per epoch with histograms; per batch)
//     against the same epoch without it;
//   - model.save to a .keras file and kiln::load_model against save_weights / load_weights of
//     the same model (the zip, the JSON config and compiling on load are the difference).
// An MLP of the Fashion-MNIST job's size (784-256-128-10, 235k parameters), on random data.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>

#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/training/callbacks/tensorboard.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/model/sequential.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRows = 4096;
constexpr int64_t kBatch = 128;

std::shared_ptr<Sequential> mlp() {
  auto model = std::make_shared<Sequential>(std::vector<layers::LayerRef>{
      layers::Input({784}), layers::Dense(256, {.activation = "relu"}),
      layers::Dense(128, {.activation = "relu"}), layers::Dense(10)});
  model->compile(
      {.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  return model;
}

// Class ids 0..9.
Tensor labels(int64_t rows) {
  return ops::cast(random::uniform({rows}, 0.0, 9.999), DType::i32);
}

std::string scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "kiln_files_bench";
  fs::create_directories(dir);
  return (dir / name).string();
}

// One epoch per iteration (each a fit call: the callback's writers and graph are made anew).
// 0: no callback; 1: TensorBoard's defaults (epoch scalars, the graph); 2: and a histogram of
// each weight; 3: and each batch's scalars.
void BM_FitEpoch(benchmark::State& state) {
  const Tensor x = random::uniform({kRows, 784}, 0.0, 1.0);
  const Tensor y = labels(kRows);
  auto model = mlp();
  const int64_t level = state.range(0);
  std::vector<CallbackPtr> callbacks;
  if (level > 0)
    callbacks.push_back(std::make_shared<TensorBoard>(
        scratch("logs"), TensorBoardOptions{.histogram_freq = level >= 2 ? 1 : 0,
                                            .update_freq = level >= 3 ? 1 : 0}));
  model->fit({x}, {y}, {.batch_size = kBatch, .epochs = 1, .verbose = 0});  // traces the steps
  for (auto _ : state)
    model->fit({x}, {y}, {.batch_size = kBatch, .epochs = 1, .verbose = 0, .callbacks = callbacks});
  static const char* const kLabels[] = {"no callback", "TensorBoard: epoch scalars, graph",
                                        "+ weight histograms", "+ scalars each batch"};
  state.SetLabel(kLabels[level]);
}
BENCHMARK(BM_FitEpoch)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// 0: save_weights then load_weights; 1: model.save to .keras then load_model.
void BM_SaveAndLoad(benchmark::State& state) {
  auto model = mlp();
  const Tensor x = random::uniform({kBatch, 784}, 0.0, 1.0);
  model->fit({x}, {labels(kBatch)}, {.verbose = 0});
  const bool whole = state.range(0) == 1;
  const std::string path = scratch(whole ? "model.keras" : "model.weights.h5");
  for (auto _ : state) {
    if (whole) {
      model->save(path);
      benchmark::DoNotOptimize(load_model(path));
    } else {
      model->save_weights(path);
      model->load_weights(path);
    }
  }
  state.SetLabel(whole ? ".keras: save + load_model" : ".weights.h5: save + load");
}
BENCHMARK(BM_SaveAndLoad)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
