// Traced functions against eager execution: cache-hit overhead per op, a tiny MLP train step,
// trace + compile time of a 20-layer train step, and the retrace cost of a predict loop with
// varying shapes. scripts/bench prints the ratios.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln {
namespace {

// n dependent adds on 4-element tensors: almost pure per-op overhead.
Tensor add_chain(const Tensor& x, const Tensor& y, int64_t n) {
  Tensor out = x;
  for (int64_t i = 0; i < n; ++i) out = ops::add(out, y);
  return out;
}

void BM_EagerOps(benchmark::State& state) {
  const Tensor x = ones({4});
  const Tensor y = ones({4});
  for (auto _ : state) benchmark::DoNotOptimize(add_chain(x, y, state.range(0)));
  state.counters["ops"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_EagerOps)->Arg(1)->Arg(10)->Arg(100);

void BM_TracedOps(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto f = function([n](const Tensor& x, const Tensor& y) { return add_chain(x, y, n); });
  const Tensor x = ones({4});
  const Tensor y = ones({4});
  f(x, y);
  for (auto _ : state) benchmark::DoNotOptimize(f(x, y));
  state.counters["ops"] = static_cast<double>(n);
}
BENCHMARK(BM_TracedOps)->Arg(1)->Arg(10)->Arg(100);

// A dense MLP whose weights are variables, trained by plain SGD.
struct Mlp {
  std::vector<Variable> params;  // w0, b0, w1, b1, ...

  Mlp(const std::vector<int64_t>& widths, uint64_t seed) {
    random::Generator gen(seed);
    for (size_t i = 0; i + 1 < widths.size(); ++i) {
      const double scale = 1.0 / std::sqrt(static_cast<double>(widths[i]));
      params.emplace_back(random::normal({widths[i], widths[i + 1]}, 0, scale, DType::f32, gen));
      params.emplace_back(zeros({widths[i + 1]}));
    }
  }

  Tensor train_step(const Tensor& x, const Tensor& y) const {
    std::vector<Tensor> values;
    for (const Variable& p : params) values.push_back(p.value());
    auto [loss, grads] = value_and_grad(
        [&](const std::vector<Tensor>& p) {
          Tensor h = x;
          for (size_t i = 0; i < p.size(); i += 2) {
            h = ops::matmul(h, p[i]) + p[i + 1];
            if (i + 2 < p.size()) h = ops::relu(h);
          }
          return ops::mean(ops::square(h - y));
        },
        values);
    for (size_t i = 0; i < params.size(); ++i) params[i].assign_sub(grads[i] * 0.01);
    return loss;
  }
};

void BM_TinyMlpTrainStep(benchmark::State& state) {
  const bool traced = state.range(0) == 1;
  const Mlp mlp({32, 32, 1}, 1);
  const Tensor x = random::uniform({32, 32});
  const Tensor y = random::uniform({32, 1});
  auto step = function([&](const Tensor& xb, const Tensor& yb) { return mlp.train_step(xb, yb); },
                       {.run_eagerly = !traced});
  step(x, y);
  for (auto _ : state) benchmark::DoNotOptimize(step(x, y));
  state.SetLabel(traced ? "traced" : "eager");
}
BENCHMARK(BM_TinyMlpTrainStep)->Arg(1)->Arg(0)->ArgName("traced");

// The demo's step: 784-256-10 with ReLU, softmax cross-entropy, batch 32. Mode 0: eager,
// 1: traced, 2: traced without fusion.
void BM_FashionMlpTrainStep(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const Mlp mlp({784, 256, 10}, 3);
  const Tensor x = random::uniform({32, 784});
  const Tensor labels = ops::cast(random::uniform({32}, 0, 10), DType::i64);
  const auto step_fn = [&](const Tensor& xb, const Tensor& yb) {
    std::vector<Tensor> values;
    for (const Variable& p : mlp.params) values.push_back(p.value());
    auto [loss, grads] = value_and_grad(
        [&](const std::vector<Tensor>& p) {
          const Tensor h = ops::relu(ops::matmul(xb, p[0]) + p[1]);
          const Tensor logits = ops::matmul(h, p[2]) + p[3];
          return -ops::mean(
              ops::take_along_axis(ops::log_softmax(logits), ops::expand_dims(yb, 1), 1));
        },
        values);
    for (size_t i = 0; i < mlp.params.size(); ++i) mlp.params[i].assign_sub(grads[i] * 0.01);
    return loss;
  };
  auto step = function(step_fn, {.run_eagerly = mode == 0, .passes = {.fusion = mode != 2}});
  step(x, labels);
  for (auto _ : state) benchmark::DoNotOptimize(step(x, labels));
  state.SetLabel(mode == 0 ? "eager" : mode == 1 ? "traced" : "traced, no fusion");
}
BENCHMARK(BM_FashionMlpTrainStep)->Arg(0)->Arg(1)->Arg(2)->ArgName("mode")->UseRealTime();

// Tracing, optimizing and planning a fresh 20-layer train step, plus its first run.
void BM_TraceCompile20LayerMlp(benchmark::State& state) {
  const Mlp mlp(std::vector<int64_t>(21, 64), 2);
  const Tensor x = random::uniform({32, 64});
  const Tensor y = random::uniform({32, 64});
  double trace_s = 0;
  double compile_s = 0;
  for (auto _ : state) {
    auto step =
        function([&](const Tensor& xb, const Tensor& yb) { return mlp.train_step(xb, yb); });
    benchmark::DoNotOptimize(step(x, y));
    trace_s += step.stats().trace_seconds;
    compile_s += step.stats().compile_seconds;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["trace_ms"] = trace_s / n * 1e3;
  state.counters["compile_ms"] = compile_s / n * 1e3;
}
BENCHMARK(BM_TraceCompile20LayerMlp)->Unit(benchmark::kMillisecond);

// 1000 predict calls, batch 1..64 and sequence length 5..50 drawn at random (seeded): the
// pattern behind "847 retraces per 1000 calls". Mode 0: no options, 1: reduce_retracing,
// 2: input_signature with unknown batch and length.
void BM_VaryingShapePredict(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const Variable w(random::uniform({8, 4}), "w");
  const auto predict = [&](const Tensor& x) {
    return ops::softmax(ops::matmul(ops::mean(x, {1}), w.value()));
  };
  std::vector<Tensor> inputs;
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const int64_t batch = std::uniform_int_distribution<int64_t>(1, 64)(rng);
    const int64_t length = std::uniform_int_distribution<int64_t>(5, 50)(rng);
    inputs.push_back(random::uniform({batch, length, 8}));
  }
  const LogLevel level = log_level();
  set_log_level(LogLevel::error);  // the retrace warnings are the point of mode 0
  int64_t traces = 0;
  int64_t plans = 0;
  for (auto _ : state) {
    FunctionOptions options;
    options.reduce_retracing = mode == 1;
    if (mode == 2) options.input_signature = std::vector{TensorSpec({-1, -1, 8})};
    auto f = function(predict, options);
    for (const Tensor& x : inputs) benchmark::DoNotOptimize(f(x));
    traces = f.stats().traces;
    plans = f.stats().plans;
  }
  set_log_level(level);
  state.counters["traces"] = static_cast<double>(traces);
  state.counters["plans"] = static_cast<double>(plans);
  state.SetLabel(mode == 0 ? "no options" : mode == 1 ? "reduce_retracing" : "input_signature");
}
BENCHMARK(BM_VaryingShapePredict)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("mode")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
