// The Fashion-MNIST CNN's first max pool (2x2 over [128, 26, 26, 32] float32) and its gradient,
// both ways: max_pool2d with max_pool2d_grad, which searches every window again, against
// max_pool2d_with_argmax with max_pool2d_grad_from_argmax, which reads the positions the forward
// recorded (what the graph pass keep_pool_argmax makes of a training step). Its windows tile the
// input, so max_pool2d and the argmax pair run kiln's own loops (tiled_max_pool.h) while
// max_pool2d_grad stays on oneDNN. Run it capped (ONEDNN_MAX_CPU_ISA=AVX2 KILN_CPU_ISA=avx2) too.
#include "benchmarks/bench_util.h"

namespace kiln::bench {
namespace {

const Shape kInput{128, 26, 26, 32};
const Attrs kPool{{"pool_size", std::vector<int64_t>{2, 2}},
                  {"strides", std::vector<int64_t>{2, 2}},
                  {"same", false}};

Shape pooled() {
  const TensorMeta x{DType::f32, kInput, Device::cpu()};
  return infer_meta(OpId::max_pool2d, std::span(&x, 1), kPool).shape;
}

void BM_MaxPool(benchmark::State& state) {
  time_kernel(state, OpId::max_pool2d, {random_input(kInput)}, kPool);
}

void BM_MaxPoolWithArgmax(benchmark::State& state) {
  const std::vector<Tensor> x{random_input(kInput)};
  const Tensor out = zeros(pooled());
  const std::vector<Tensor> argmax{zeros(pooled(), DType::u8)};
  for (auto _ : state) run_kernel(OpId::max_pool2d_with_argmax, x, out, kPool, argmax);
}

void BM_MaxPoolGrad(benchmark::State& state) {
  time_kernel(state, OpId::max_pool2d_grad, {random_input(kInput), random_input(pooled())}, kPool);
}

void BM_MaxPoolGradFromArgmax(benchmark::State& state) {
  const Tensor out = zeros(pooled());
  const std::vector<Tensor> argmax{zeros(pooled(), DType::u8)};
  const std::vector<Tensor> x{random_input(kInput)};
  run_kernel(OpId::max_pool2d_with_argmax, x, out, kPool, argmax);
  Attrs attrs = kPool;
  attrs.set("input_hw", std::vector<int64_t>{kInput[1], kInput[2]});
  time_kernel(state, OpId::max_pool2d_grad_from_argmax, {argmax[0], random_input(pooled())}, attrs);
}

// oneDNN runs on several threads, so times are wall times.
BENCHMARK(BM_MaxPool)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPoolWithArgmax)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPoolGrad)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPoolGradFromArgmax)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln::bench

BENCHMARK_MAIN();
