// Elementwise fusion: traced chains of elementwise ops over 1M floats with the fusion pass on
// and off. Unfused, each op reads and writes the whole tensor; fused, one loop reads the inputs
// and writes the output once.
#include <benchmark/benchmark.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"

namespace kiln {
namespace {

constexpr int64_t kElements = int64_t{1} << 20;

// Cheap arithmetic: memory traffic is the whole cost, the case fusion helps most.
Tensor arithmetic_chain(const Tensor& x, const Tensor& w, const Tensor& b) {
  return ops::maximum(ops::relu(x * w + b) * x - 0.5, -1.0);
}

// Transcendentals: more of the time is compute, which fusion does not remove.
Tensor activation_chain(const Tensor& x, const Tensor& w, const Tensor& b) {
  return ops::tanh(x * w + b) * ops::sigmoid(x) - 0.5;
}

// Relu's gradient as autodiff traces it, g * cast(x > 0): a comparison's 0/1 joins the chain.
Tensor relu_gradient_chain(const Tensor& x, const Tensor& g, const Tensor&) {
  return g * ops::cast(ops::greater(x, 0.0), DType::f32);
}

// A Dense layer's bias and relu over its [128, 512] product: the bias row is read once per row.
Tensor bias_relu_chain(const Tensor& x, const Tensor& b) {
  return ops::relu(x + b);
}

template <Tensor (*chain)(const Tensor&, const Tensor&, const Tensor&)>
void BM_Chain(benchmark::State& state) {
  const bool fused = state.range(0) == 1;
  auto f = function(chain, {.passes = {.fusion = fused}});
  const Tensor x = random::uniform({kElements}, -1.0, 1.0);
  const Tensor w = random::uniform({kElements}, -1.0, 1.0);
  const Tensor b = scalar(0.25);
  f(x, w, b);
  for (auto _ : state) benchmark::DoNotOptimize(f(x, w, b));
  state.SetBytesProcessed(state.iterations() * kElements * 3 * int64_t{sizeof(float)});
  state.SetLabel(fused ? "fused" : "unfused");
}

void BM_BiasRelu(benchmark::State& state) {
  const bool fused = state.range(0) == 1;
  auto f = function(bias_relu_chain, {.passes = {.fusion = fused}});
  const Tensor x = random::uniform({128, 512}, -1.0, 1.0);
  const Tensor b = random::uniform({512}, -1.0, 1.0);
  f(x, b);
  for (auto _ : state) benchmark::DoNotOptimize(f(x, b));
  state.SetBytesProcessed(state.iterations() * x.numel() * 2 * int64_t{sizeof(float)});
  state.SetLabel(fused ? "fused" : "unfused");
}

// Rates from wall time: the loops run on the OpenMP pool.
BENCHMARK(BM_Chain<arithmetic_chain>)
    ->Name("BM_ArithmeticChain6")
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Chain<activation_chain>)
    ->Name("BM_ActivationChain6")
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Chain<relu_gradient_chain>)
    ->Name("BM_ReluGradientChain3")
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_BiasRelu)
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
