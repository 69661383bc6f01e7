// Square float32 matmul through kiln against oneDNN's sgemm called directly: kiln's matmul runs
// on oneDNN, so the gap between the two is kiln's own overhead.
#include <oneapi/dnnl/dnnl.h>

#include "benchmarks/bench_util.h"
#include "framework/ops/ops.h"

namespace kiln::bench {
namespace {

double matmul_flops(int64_t n) {
  return 2.0 * static_cast<double>(n) * n * n;
}

// The kernel as the graph executor runs it, into a preallocated output.
void BM_KilnMatmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  time_kernel(state, OpId::matmul, {random_input({n, n}), random_input({n, n})},
              {{"transpose_a", false}, {"transpose_b", false}});
  set_gflops(state, matmul_flops(n));
}

// The public eager op, which also infers the output and allocates it on every call.
void BM_KilnMatmulAllocating(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = random_input({n, n});
  const Tensor b = random_input({n, n});
  for (auto _ : state) {
    Tensor c = ops::matmul(a, b);
    benchmark::DoNotOptimize(c);
  }
  set_gflops(state, matmul_flops(n));
}

void BM_DirectSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = random_input({n, n});
  const Tensor b = random_input({n, n});
  const Tensor c = zeros({n, n});
  const auto sgemm = [&] {
    return dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data<float>(), n, b.data<float>(), n, 0.0f,
                      c.data<float>(), n);
  };
  // Untimed, like kiln's first run: starts the thread pool.
  if (sgemm() != dnnl_success) {
    state.SkipWithError("dnnl_sgemm failed");
    return;
  }
  for (auto _ : state) sgemm();
  set_gflops(state, matmul_flops(n));
}

// oneDNN runs on several threads, so rates are taken from wall time.
void square_sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(2)->Range(256, 2048)->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_KilnMatmul)->Apply(square_sizes);
BENCHMARK(BM_KilnMatmulAllocating)->Apply(square_sizes);
BENCHMARK(BM_DirectSgemm)->Apply(square_sizes);

}  // namespace
}  // namespace kiln::bench

BENCHMARK_MAIN();
