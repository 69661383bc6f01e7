// A traced Adam update of the Fashion-MNIST MLP's weights (784x512, 512x256, 256x10 and the
// biases): the one-pass adam_update op against the same update as separate ops, which the
// fusion pass runs as three fused programs per variable (the two moments, then the weight
// reading them back).
#include <benchmark/benchmark.h>

#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "kiln/framework/random/random.h"

namespace kiln {
namespace {

constexpr double kBeta1 = 0.9;
constexpr double kBeta2 = 0.999;
constexpr double kEpsilon = 1e-7;

struct Slots {
  Variable weight, m, v;
};

void update_in_one_pass(Slots& s, const Tensor& g, const Tensor& alpha) {
  const ops::AdamUpdate next = ops::adam_update(s.weight.value(), s.m.value(), s.v.value(), g,
                                                alpha, kBeta1, kBeta2, kEpsilon);
  s.m.assign(next.m);
  s.v.assign(next.v);
  s.weight.assign(next.variable);
}

void update_as_ops(Slots& s, const Tensor& g, const Tensor& alpha) {
  s.m.assign_add((g - s.m.value()) * (1 - kBeta1));
  s.v.assign_add((ops::square(g) - s.v.value()) * (1 - kBeta2));
  s.weight.assign_sub(s.m.value() * alpha / (ops::sqrt(s.v.value()) + kEpsilon));
}

void BM_AdamUpdate(benchmark::State& state) {
  const bool one_pass = state.range(0) == 1;
  const std::vector<Shape> shapes{{784, 512}, {512}, {512, 256}, {256}, {256, 10}, {10}};
  std::vector<Slots> slots;
  std::vector<Tensor> gradients;
  int64_t parameters = 0;
  for (const Shape& s : shapes) {
    slots.push_back({Variable(random::uniform(s, -0.1, 0.1)), Variable(zeros(s, DType::f32)),
                     Variable(zeros(s, DType::f32))});
    gradients.push_back(random::uniform(s, -1e-3, 1e-3));
    parameters += s.numel();
  }
  auto step = function([&](const std::vector<Tensor>& g, const Tensor& alpha) {
    for (size_t k = 0; k < slots.size(); ++k)
      (one_pass ? update_in_one_pass : update_as_ops)(slots[k], g[k], alpha);
  });
  const Tensor alpha = scalar(1e-4);
  step(gradients, alpha);
  for (auto _ : state) step(gradients, alpha);
  // Read: gradient, both moments, weight; written: both moments, weight.
  state.SetBytesProcessed(state.iterations() * parameters * 7 * int64_t{sizeof(float)});
  state.SetLabel(one_pass ? "adam_update" : "separate ops, fused");
}

// Rates from wall time: the loops run on the OpenMP pool.
BENCHMARK(BM_AdamUpdate)
    ->ArgName("one_pass")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
