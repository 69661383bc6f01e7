#include "apps/examples/example_support.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string_view>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/losses/losses.h"
#include "kiln/optimizers/adam.h"
#include "kiln/training/model/trainer.h"

namespace kiln::examples {
namespace {

datasets::LabeledImages first(const datasets::LabeledImages& split, int64_t n) {
  if (n <= 0 || n >= split.images.dim(0)) return split;
  return {ops::slice(split.images, {0, 0, 0}, {n, -1, -1}), ops::slice(split.labels, {0}, {n})};
}

ExampleOptions parse(int argc, char** argv, ExampleOptions o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> std::string {
      KILN_CHECK(i + 1 < argc, "missing value after ", arg);
      return argv[++i];
    };
    if (arg == "--epochs")
      o.epochs = std::stoi(value());
    else if (arg == "--batch-size")
      o.batch_size = std::stoll(value());
    else if (arg == "--learning-rate")
      o.learning_rate = std::stod(value());
    else if (arg == "--limit")
      o.limit = std::stoll(value());
    else if (arg == "--validation-split")
      o.validation_split = std::stod(value());
    else if (arg == "--model")
      o.model = value();
    else if (arg == "--dtype-policy")
      o.dtype_policy = value();
    else if (arg == "--seed")
      o.seed = std::stoull(value());
    else if (arg == "--data")
      o.data_dir = value();
    else if (arg == "--require-accuracy")
      o.require_accuracy = std::stod(value());
    else if (arg == "--run-eagerly")
      o.run_eagerly = true;
    else if (arg == "--show-graph")
      o.show_graph = true;
    else
      throw Error(
          "unknown option " + std::string(arg) +
          " (options: --epochs --batch-size --learning-rate --limit --validation-split "
          "--seed --data --model --dtype-policy --require-accuracy --run-eagerly --show-graph)");
  }
  return o;
}

}  // namespace

datasets::FashionMnist load_data(const ExampleOptions& options) {
  const datasets::FashionMnist all = datasets::load_fashion_mnist(options.data_dir);
  datasets::FashionMnist data{first(all.train, options.limit), first(all.test, options.limit / 6)};
  std::printf("Fashion-MNIST: %lld train, %lld test images from %s\n",
              static_cast<long long>(data.train.images.dim(0)),
              static_cast<long long>(data.test.images.dim(0)), options.data_dir.c_str());
  return data;
}

void EpochTimer::on_epoch_begin(int, const Logs&) {
  start_ = std::chrono::steady_clock::now();
}

void EpochTimer::on_epoch_end(int, Logs&) {
  seconds_.push_back(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
}

CompileOptions classifier_options(const ExampleOptions& options) {
  return {.optimizer = std::make_shared<optimizers::Adam>(
              optimizers::OptimizerOptions{.learning_rate = options.learning_rate}),
          .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
              losses::SparseCategoricalCrossentropyOptions{.from_logits = true}),
          .metrics = {"accuracy"},
          .run_eagerly = options.run_eagerly};
}

int fit_and_report(Model& model, const std::vector<Tensor>& train_x, const Tensor& train_y,
                   const std::vector<Tensor>& test_x, const Tensor& test_y,
                   const ExampleOptions& options) {
  auto timer = std::make_shared<EpochTimer>();
  model.fit(train_x, {train_y},
            {.batch_size = options.batch_size,
             .epochs = options.epochs,
             .callbacks = {timer},
             .validation_split = options.validation_split});
  return report(model, model.evaluate(test_x, {test_y}, {.batch_size = 256}), *timer, options);
}

int report(Model& model, const std::map<std::string, double>& scores, const EpochTimer& timer,
           const ExampleOptions& options) {
  const double accuracy = scores.at("accuracy");
  std::printf("test loss %.4f, test accuracy %.4f\n", scores.at("loss"), accuracy);
  std::printf("epoch seconds:");
  for (const double s : timer.seconds()) std::printf(" %.3f", s);
  std::printf("\n");
  const FunctionStats stats = model.trainer().train_stats();
  std::printf(
      "train_step: %lld calls, %lld traces, %lld plans, %.1f ms tracing, %.1f ms compiling\n",
      static_cast<long long>(stats.calls), static_cast<long long>(stats.traces),
      static_cast<long long>(stats.plans), stats.trace_seconds * 1e3, stats.compile_seconds * 1e3);
  if (options.show_graph && model.trainer().train_function() != nullptr)
    std::printf("optimized train step graph:\n%s",
                model.trainer().train_function()->graph_text().c_str());
  if (accuracy < options.require_accuracy) {
    std::fprintf(stderr, "test accuracy %.4f is below the required %.4f\n", accuracy,
                 options.require_accuracy);
    return 2;
  }
  return 0;
}

int run_example(int argc, char** argv, ExampleOptions defaults,
                const std::function<int(const ExampleOptions&)>& body) {
  const std::string program = std::filesystem::path(argv[0]).filename().string();
  try {
    const ExampleOptions options = parse(argc, argv, std::move(defaults));
    random::set_seed(options.seed);
    layers::set_global_policy(options.dtype_policy);
    return body(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return 1;
  }
}

}  // namespace kiln::examples
