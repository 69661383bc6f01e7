// add and relu over flat float32 buffers against std::memcpy of the same size: both are
// memory-bound, so memcpy's bandwidth is the ceiling the elementwise loops are measured against.
#include <cstring>
#include <vector>

#include "benchmarks/bench_util.h"
#include "kiln/framework/backends/cpu/parallel.h"

namespace kiln::bench {
namespace {

constexpr int64_t kFloat = sizeof(float);

// Reads two inputs and writes one output: 12 bytes an element.
void BM_Add(benchmark::State& state) {
  const int64_t n = state.range(0);
  time_kernel(state, OpId::add, {random_input({n}), random_input({n})}, {});
  state.SetBytesProcessed(state.iterations() * n * 3 * kFloat);
}

// Reads one input and writes one output: 8 bytes an element.
void BM_Relu(benchmark::State& state) {
  const int64_t n = state.range(0);
  time_kernel(state, OpId::relu, {random_input({n})}, {});
  state.SetBytesProcessed(state.iterations() * n * 2 * kFloat);
}

// Stateless uniform draws (Dropout's masks): writes 4 bytes an element, computing a quarter of
// a Philox block for each.
void BM_RandomUniform(benchmark::State& state) {
  const int64_t n = state.range(0);
  time_kernel(state, OpId::random_uniform, {random_input({n}), from_vector<int64_t>({7, 1}, {2})},
              {{"dtype", DType::f32}});
  state.SetItemsProcessed(state.iterations() * n);
}

// Reads and writes n floats: 8 bytes an element, the same traffic as relu.
void BM_Memcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::vector<float> src(static_cast<size_t>(n), 1.0f);
  std::vector<float> dst(static_cast<size_t>(n));
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), static_cast<size_t>(n) * kFloat);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * kFloat);
}

// The same copy split across the OpenMP pool the way kiln's loops are: the fair baseline for
// multi-threaded kernels on a machine where one core cannot saturate memory.
void BM_MemcpyParallel(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::vector<float> src(static_cast<size_t>(n), 1.0f);
  std::vector<float> dst(static_cast<size_t>(n));
  for (auto _ : state) {
    cpu::parallel_for(n, cpu::kParallelGrain, [&](int64_t begin, int64_t end) {
      std::memcpy(dst.data() + begin, src.data() + begin,
                  static_cast<size_t>(end - begin) * kFloat);
    });
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * kFloat);
}

// 1M floats (4 MiB) stay in the last-level cache; 16M (64 MiB) go to memory. The loops run on
// several threads, so rates are taken from wall time.
void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(int64_t{1} << 20)->Arg(int64_t{1} << 24)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_Add)->Apply(sizes);
BENCHMARK(BM_Relu)->Apply(sizes);
BENCHMARK(BM_RandomUniform)->Apply(sizes);
BENCHMARK(BM_Memcpy)->Apply(sizes);
BENCHMARK(BM_MemcpyParallel)->Apply(sizes);

}  // namespace
}  // namespace kiln::bench

BENCHMARK_MAIN();
