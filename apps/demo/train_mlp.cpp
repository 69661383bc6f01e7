// Trains a 2-layer network on Fashion-MNIST with a traced train step (forward, autodiff and a
// plain SGD update of the weight variables, run as one planned graph per batch shape), and prints
// loss, accuracy and the step's trace counters. (Stands in for `kiln train` until the Keras
// models land.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <string_view>

#include "datasets/fashion_mnist.h"
#include "engine/function/function.h"
#include "framework/autodiff/grad.h"
#include "framework/autodiff/grad_mode.h"
#include "framework/core/error.h"
#include "framework/ops/ops.h"
#include "framework/random/random.h"
#include "framework/tensor/variable.h"

namespace {

using kiln::Tensor;
namespace ops = kiln::ops;

struct Options {
  int epochs = 1;
  int64_t batch_size = 32;
  double learning_rate = 0.1;
  int64_t hidden = 256;
  uint64_t seed = 42;
  double require_accuracy = 0;  // exit with status 2 when the final test accuracy is lower
  bool run_eagerly = false;     // run the train step op by op (debugging, comparison)
  std::string data_dir = kiln::datasets::default_fashion_mnist_dir();
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      KILN_CHECK(i + 1 < argc, "missing value after ", arg);
      return argv[++i];
    };
    if (arg == "--epochs")
      o.epochs = std::stoi(value());
    else if (arg == "--batch-size")
      o.batch_size = std::stoll(value());
    else if (arg == "--learning-rate")
      o.learning_rate = std::stod(value());
    else if (arg == "--hidden")
      o.hidden = std::stoll(value());
    else if (arg == "--seed")
      o.seed = std::stoull(value());
    else if (arg == "--data")
      o.data_dir = value();
    else if (arg == "--require-accuracy")
      o.require_accuracy = std::stod(value());
    else if (arg == "--run-eagerly")
      o.run_eagerly = true;
    else
      throw kiln::Error("unknown option " + std::string(arg) +
                        " (options: --epochs --batch-size --learning-rate --hidden --seed --data "
                        "--require-accuracy --run-eagerly)");
  }
  return o;
}

// Glorot (Xavier) uniform, the Keras default kernel initializer.
Tensor glorot_uniform(int64_t fan_in, int64_t fan_out) {
  const double limit = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return kiln::random::uniform({fan_in, fan_out}, -limit, limit);
}

Tensor forward(const std::vector<Tensor>& p, const Tensor& x) {
  const Tensor h = ops::relu(ops::matmul(x, p[0]) + p[1]);
  return ops::matmul(h, p[2]) + p[3];
}

// Mean sparse categorical cross-entropy from logits.
Tensor loss_of(const Tensor& logits, const Tensor& labels) {
  const Tensor picked =
      ops::take_along_axis(ops::log_softmax(logits), ops::expand_dims(labels, 1), 1);
  return -ops::mean(picked);
}

std::vector<Tensor> values_of(const std::vector<kiln::Variable>& variables) {
  std::vector<Tensor> out;
  for (const kiln::Variable& v : variables) out.push_back(v.value());
  return out;
}

double accuracy(const std::vector<kiln::Variable>& params, const Tensor& x, const Tensor& y) {
  kiln::NoGradGuard no_grad;
  const Tensor predicted = ops::argmax(forward(values_of(params), x), -1);
  return ops::mean(ops::cast(ops::equal(predicted, y), kiln::DType::f32)).item<double>();
}

int run(const Options& o) {
  kiln::random::set_seed(o.seed);
  const auto data = kiln::datasets::load_fashion_mnist(o.data_dir);
  const Tensor x_train = ops::flatten(data.train.images);
  const Tensor x_test = ops::flatten(data.test.images);
  const int64_t n = x_train.dim(0);
  const int64_t features = x_train.dim(1);
  std::printf("Fashion-MNIST: %lld train, %lld test images from %s\n", static_cast<long long>(n),
              static_cast<long long>(x_test.dim(0)), o.data_dir.c_str());

  const std::vector<kiln::Variable> params{
      kiln::Variable(glorot_uniform(features, o.hidden), "dense/kernel"),
      kiln::Variable(kiln::zeros({o.hidden}), "dense/bias"),
      kiln::Variable(glorot_uniform(o.hidden, 10), "dense_1/kernel"),
      kiln::Variable(kiln::zeros({10}), "dense_1/bias")};
  auto train_step = kiln::function(
      [&](const Tensor& xb, const Tensor& yb) {
        auto [loss, grads] = kiln::value_and_grad(
            [&](const std::vector<Tensor>& p) { return loss_of(forward(p, xb), yb); },
            values_of(params));
        for (size_t i = 0; i < params.size(); ++i) params[i].assign_sub(grads[i] * o.learning_rate);
        return loss;
      },
      {.name = "train_step", .run_eagerly = o.run_eagerly});
  std::mt19937_64 shuffle_rng(o.seed);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const int64_t steps = (n + o.batch_size - 1) / o.batch_size;

  double test_accuracy = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    double loss_sum = 0;
    for (int64_t step = 0; step < steps; ++step) {
      const int64_t begin = step * o.batch_size;
      const int64_t size = std::min(o.batch_size, n - begin);
      const Tensor idx = kiln::from_vector(
          std::span<const int64_t>(order.data() + begin, static_cast<size_t>(size)), {size});
      const Tensor xb = ops::gather(x_train, idx, 0);
      const Tensor yb = ops::gather(data.train.labels, idx, 0);
      loss_sum += train_step(xb, yb).item<double>();
      if ((step + 1) % 200 == 0 || step + 1 == steps)
        std::printf("epoch %d step %lld/%lld loss %.4f\n", epoch, static_cast<long long>(step + 1),
                    static_cast<long long>(steps), loss_sum / static_cast<double>(step + 1));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    test_accuracy = accuracy(params, x_test, data.test.labels);
    std::printf("epoch %d: loss %.4f, train accuracy %.4f, test accuracy %.4f (%.1f s)\n", epoch,
                loss_sum / static_cast<double>(steps), accuracy(params, x_train, data.train.labels),
                test_accuracy, seconds);
  }
  const kiln::FunctionStats stats = train_step.stats();
  std::printf(
      "train_step: %lld calls, %lld traces, %lld plans, %.1f ms tracing, %.1f ms compiling\n",
      static_cast<long long>(stats.calls), static_cast<long long>(stats.traces),
      static_cast<long long>(stats.specializations), stats.trace_seconds * 1e3,
      stats.compile_seconds * 1e3);
  if (test_accuracy < o.require_accuracy) {
    std::fprintf(stderr, "kiln_demo: test accuracy %.4f is below the required %.4f\n",
                 test_accuracy, o.require_accuracy);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_demo: %s\n", e.what());
    return 1;
  }
}
