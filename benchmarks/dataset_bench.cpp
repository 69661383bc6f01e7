// One epoch of a Fashion-MNIST input pipeline: 60000 images [28, 28] float32 and int64 labels ->
// shuffle(60000) -> batch(128) -> prefetch(2), 469 batches. The consumer does nothing, so the
// time is the pipeline's own cost. The baseline gathers the same rows in a random order into 469
// batch tensors with one thread's memcpy; the pipeline's batch gathers them on the thread pool.
// Beside a step, the consumer multiplies each batch by a Dense kernel on the pool while a
// prefetch worker batches the next ones.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "kiln/datasets/dataset.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::datasets {
namespace {

constexpr int64_t kRows = 60000;
constexpr int64_t kBatch = 128;

// The values do not matter to a pipeline that only moves them; arange fills every page.
struct Data {
  Tensor images = arange(0, kRows * 28 * 28, 1, DType::f32).view({kRows, 28, 28});
  Tensor labels = arange(kRows);
};

const Data& data() {
  static const Data d;
  return d;
}

// Runs one pass per iteration, a new pass number each time so every epoch reshuffles, calling
// step on each batch.
template <typename Step>
void run_epochs(benchmark::State& state, const Dataset& ds, Step&& step) {
  uint64_t pass = 0;
  int64_t batches = 0;
  for (auto _ : state) {
    Iterator it = ds.iterator(pass++);
    while (std::optional<Element> batch = it.next()) {
      step(*batch);
      ++batches;
    }
  }
  state.counters["batches/epoch"] =
      static_cast<double>(batches) / static_cast<double>(state.iterations());
  state.SetBytesProcessed(state.iterations() * kRows * (28 * 28 * 4 + 8));
}

void run_epochs(benchmark::State& state, const Dataset& ds) {
  run_epochs(state, ds,
             [](const Element& batch) { benchmark::DoNotOptimize(batch.front().raw_data()); });
}

Dataset slices() {
  return Dataset::from_tensor_slices({data().images, data().labels});
}

// The first Dense layer of the MLP example, forward, on each batch.
void BM_EpochBesideSteps(benchmark::State& state) {
  const Dataset batches = slices().shuffle(kRows, 42).batch(kBatch);
  const Tensor kernel = ones({28 * 28, 512});
  run_epochs(state, state.range(0) == 1 ? batches.prefetch(2) : batches, [&](const Element& batch) {
    const Tensor x = batch.front().view({batch.front().dim(0), 28 * 28});
    benchmark::DoNotOptimize(ops::matmul(x, kernel).raw_data());
  });
  state.SetLabel(state.range(0) == 1 ? "prefetched" : "inline");
}

void BM_EpochShuffleBatchPrefetch(benchmark::State& state) {
  run_epochs(state, slices().shuffle(kRows, 42).batch(kBatch).prefetch(2));
}

// The same without the background thread: what prefetch costs or saves.
void BM_EpochShuffleBatch(benchmark::State& state) {
  run_epochs(state, slices().shuffle(kRows, 42).batch(kBatch));
}

// Without the shuffle: slicing and batching alone, rows read in memory order.
void BM_EpochBatch(benchmark::State& state) {
  run_epochs(state, slices().batch(kBatch));
}

void BM_MemcpyGatherBaseline(benchmark::State& state) {
  const Data& d = data();
  std::vector<int64_t> order(static_cast<size_t>(kRows));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(42);
  const size_t image_bytes = 28 * 28 * sizeof(float);
  for (auto _ : state) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t begin = 0; begin < kRows; begin += kBatch) {
      const int64_t n = std::min(kBatch, kRows - begin);
      Tensor x = Tensor::empty({n, 28, 28});
      Tensor y = Tensor::empty({n}, DType::i64);
      for (int64_t r = 0; r < n; ++r) {
        const int64_t row = order[static_cast<size_t>(begin + r)];
        std::memcpy(static_cast<char*>(x.raw_data()) + r * image_bytes,
                    static_cast<const char*>(d.images.raw_data()) + row * image_bytes, image_bytes);
        y.data<int64_t>()[r] = d.labels.data<int64_t>()[row];
      }
      benchmark::DoNotOptimize(x.raw_data());
    }
  }
  state.SetBytesProcessed(state.iterations() * kRows * (28 * 28 * 4 + 8));
}

BENCHMARK(BM_EpochShuffleBatchPrefetch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_EpochShuffleBatch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_EpochBatch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MemcpyGatherBaseline)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_EpochBesideSteps)
    ->ArgName("prefetch")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace kiln::datasets

BENCHMARK_MAIN();
