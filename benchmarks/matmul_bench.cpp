// Square float32 matmul through kiln against oneDNN's sgemm called directly: kiln's matmul runs
// on oneDNN, so the gap between the two is kiln's own overhead. Also the MLP step's GEMMs in
// bfloat16 (mixed_bfloat16): on oneDNN where it has bfloat16 for the processor, on the reference
// loop elsewhere (run it again under ONEDNN_MAX_CPU_ISA=AVX2 for an AVX2-only processor's).
#include <oneapi/dnnl/dnnl.h>

#include "benchmarks/bench_util.h"
#include "kiln/framework/ops/ops.h"

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

// The GEMMs of one MLP train step (784-512-256-10, batch 128): forward x W, and backward
// g W^T and x^T g, with kiln's matmul and with oneDNN's sgemm on the same operands.
// Args: m, k, n, transpose_a, transpose_b (of the [m, k] x [k, n] product).
void mlp_step_gemms(benchmark::internal::Benchmark* b) {
  for (const auto& [in, out] : {std::pair<int64_t, int64_t>{784, 512}, {512, 256}, {256, 10}}) {
    b->Args({128, in, out, 0, 0});  // forward
    b->Args({128, out, in, 0, 1});  // input gradient
    b->Args({in, 128, out, 1, 0});  // kernel gradient
  }
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

Shape stored(int64_t rows, int64_t cols, bool transposed) {
  return transposed ? Shape{cols, rows} : Shape{rows, cols};
}

void BM_KilnMatmulMlpStep(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  time_kernel(state, OpId::matmul, {random_input(stored(m, k, ta)), random_input(stored(k, n, tb))},
              {{"transpose_a", ta}, {"transpose_b", tb}});
  set_gflops(state, 2.0 * static_cast<double>(m * k * n));
}

void BM_DirectSgemmMlpStep(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  const Tensor a = random_input(stored(m, k, ta));
  const Tensor b = random_input(stored(k, n, tb));
  const Tensor c = zeros({m, n});
  const auto sgemm = [&] {
    return dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a.data<float>(), ta ? m : k,
                      b.data<float>(), tb ? k : n, 0.0f, c.data<float>(), n);
  };
  if (sgemm() != dnnl_success) {
    state.SkipWithError("dnnl_sgemm failed");
    return;
  }
  for (auto _ : state) sgemm();
  set_gflops(state, 2.0 * static_cast<double>(m * k * n));
}

void BM_KilnMatmulMlpStepBf16(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  time_kernel(state, OpId::matmul,
              {ops::cast(random_input(stored(m, k, ta)), DType::bf16),
               ops::cast(random_input(stored(k, n, tb)), DType::bf16)},
              {{"transpose_a", ta}, {"transpose_b", tb}});
  set_gflops(state, 2.0 * static_cast<double>(m * k * n));
}

BENCHMARK(BM_KilnMatmulMlpStep)->Apply(mlp_step_gemms);
BENCHMARK(BM_DirectSgemmMlpStep)->Apply(mlp_step_gemms);
BENCHMARK(BM_KilnMatmulMlpStepBf16)->Apply(mlp_step_gemms);

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
