// float32 conv2d and its two backward ops on Keras-typical layers (3x3 kernels, stride 1, same
// padding, NHWC), as GFLOP/s.
#include <string>
#include <utility>
#include <vector>

#include "benchmarks/bench_util.h"

namespace kiln::bench {
namespace {

struct ConvCase {
  const char* name;
  Shape input;   // NHWC
  Shape kernel;  // HWIO
};

const ConvCase kCases[] = {
    {"b32_28x28x1_to_32", {32, 28, 28, 1}, {3, 3, 1, 32}},     // the first layer of an MNIST net
    {"b32_14x14x32_to_64", {32, 14, 14, 32}, {3, 3, 32, 64}},  // its second, after pooling
    {"b8_56x56x64_to_64", {8, 56, 56, 64}, {3, 3, 64, 64}},    // a ResNet stage-1 layer
};

// The tensors of one layer's forward and backward passes. The three ops cost the same flops.
struct ConvOperands {
  Attrs attrs;
  Tensor x, w, dy;
  double flops = 0;
};

ConvOperands make_operands(const ConvCase& c) {
  ConvOperands o;
  o.attrs = {{"strides", std::vector<int64_t>{1, 1}},
             {"dilation", std::vector<int64_t>{1, 1}},
             {"same", true},
             {"groups", int64_t{1}}};
  o.x = random_input(c.input);
  o.w = random_input(c.kernel);
  const TensorMeta operands[] = {o.x.meta(), o.w.meta()};
  const Shape y = infer_meta(OpId::conv2d, operands, o.attrs).shape;
  o.dy = random_input(y);
  // A multiply-add per output element and kernel tap over the input channels.
  o.flops = 2.0 * static_cast<double>(y.numel()) * c.kernel[0] * c.kernel[1] * c.kernel[2];
  return o;
}

void BM_Conv2d(benchmark::State& state, const ConvCase& c) {
  const ConvOperands o = make_operands(c);
  time_kernel(state, OpId::conv2d, {o.x, o.w}, o.attrs);
  set_gflops(state, o.flops);
}

void BM_Conv2dBackpropInput(benchmark::State& state, const ConvCase& c) {
  ConvOperands o = make_operands(c);
  o.attrs.set("input_shape", c.input.dims());
  time_kernel(state, OpId::conv2d_backprop_input, {o.dy, o.w}, o.attrs);
  set_gflops(state, o.flops);
}

void BM_Conv2dBackpropFilter(benchmark::State& state, const ConvCase& c) {
  ConvOperands o = make_operands(c);
  o.attrs.set("filter_shape", c.kernel.dims());
  time_kernel(state, OpId::conv2d_backprop_filter, {o.x, o.dy}, o.attrs);
  set_gflops(state, o.flops);
}

void register_benchmarks() {
  using Fn = void (*)(benchmark::State&, const ConvCase&);
  const std::pair<std::string, Fn> ops[] = {{"BM_Conv2d/", BM_Conv2d},
                                            {"BM_Conv2dBackpropInput/", BM_Conv2dBackpropInput},
                                            {"BM_Conv2dBackpropFilter/", BM_Conv2dBackpropFilter}};
  for (const auto& [prefix, fn] : ops) {
    for (const ConvCase& c : kCases) {
      // oneDNN runs on several threads, so rates are taken from wall time.
      benchmark::RegisterBenchmark((prefix + c.name).c_str(),
                                   [fn = fn, &c](benchmark::State& state) { fn(state, c); })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
