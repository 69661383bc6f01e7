// The TensorBoard callback over a real fit: Keras's tags in Keras's two run directories, the
// scalars equal to what fit logged, batch scalars every update_freq batches, a histogram of each
// weight, and the traced train step's graph.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/dtype_policy.h"
#include "kiln/training/callbacks/tensorboard.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/tensorboard/event_reader.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using tensorboard::EventRecord;

// tag -> (step -> value) over every event of the one event file in `dir`.
std::map<std::string, std::map<int64_t, double>> scalars_in(const std::string& dir) {
  const std::vector<std::string> files = tensorboard::event_files(dir);
  EXPECT_EQ(files.size(), 1u) << dir;
  std::map<std::string, std::map<int64_t, double>> out;
  for (const EventRecord& e : tensorboard::read_event_file(files.at(0)))
    for (const auto& [tag, value] : e.scalars) out[tag][e.step] = value;
  return out;
}

struct LoggedFit {
  std::string log_dir;
  History history;
};

LoggedFit fit_with_tensorboard(const std::string& name, TensorBoardOptions options,
                               CompileOptions compile = {
                                   .optimizer = "adam", .loss = "mse", .metrics = {"mae"}}) {
  random::set_seed(5);
  layers::reset_names();
  Sequential model(
      {layers::Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
  model.compile(std::move(compile));
  const Tensor x = random::normal({16, 3});
  const Tensor y = random::normal({16, 1});
  const fs::path log_dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(log_dir);
  auto callback = std::make_shared<TensorBoard>(log_dir.string(), options);
  History history = model.fit({x}, {y},
                              {.batch_size = 4,
                               .epochs = 3,
                               .verbose = 0,
                               .callbacks = {callback},
                               .validation_data = ValidationData{{x}, {y}}});
  return {log_dir.string(), history};
}

TEST(TensorBoardCallback, EpochScalarsInTrainAndValidationEqualTheLogs) {
  const LoggedFit run = fit_with_tensorboard("tb_epoch", {});
  const auto train = scalars_in(run.log_dir + "/train");
  const auto validation = scalars_in(run.log_dir + "/validation");
  for (int epoch = 0; epoch < 3; ++epoch) {
    EXPECT_NEAR(train.at("epoch_loss").at(epoch), run.history.history.at("loss")[epoch], 1e-6);
    EXPECT_NEAR(train.at("epoch_mae").at(epoch), run.history.history.at("mae")[epoch], 1e-6);
    EXPECT_NEAR(train.at("epoch_learning_rate").at(epoch), 0.001, 1e-9);
    EXPECT_NEAR(validation.at("epoch_loss").at(epoch), run.history.history.at("val_loss")[epoch],
                1e-6);
  }
  // Validation after each epoch, at the optimizer's step count (4 batches an epoch).
  EXPECT_EQ(validation.at("evaluation_loss_vs_iterations").size(), 3u);
  EXPECT_TRUE(validation.at("evaluation_loss_vs_iterations").contains(12));
  // update_freq "epoch": no batch scalars; no val_ prefix anywhere.
  for (const auto& [tag, values] : train) {
    EXPECT_FALSE(tag.starts_with("batch_")) << tag;
    EXPECT_FALSE(tag.starts_with("epoch_val_")) << tag;
  }
}

TEST(TensorBoardCallback, BatchScalarsHistogramsAndTheGraph) {
  const LoggedFit run = fit_with_tensorboard("tb_batch", {.histogram_freq = 2, .update_freq = 2});
  const auto train = scalars_in(run.log_dir + "/train");
  // 12 batches in all: every second one, numbered from 1 as Keras numbers them.
  std::vector<int64_t> steps;
  for (const auto& [step, value] : train.at("batch_loss")) steps.push_back(step);
  EXPECT_EQ(steps, (std::vector<int64_t>{2, 4, 6, 8, 10, 12}));
  std::map<std::string, std::vector<int64_t>> histograms;
  int graphs = 0;
  for (const EventRecord& e :
       tensorboard::read_event_file(tensorboard::event_files(run.log_dir + "/train").at(0))) {
    for (const auto& [tag, h] : e.histograms) {
      histograms[tag].push_back(e.step);
      if (tag == "dense/kernel/histogram") {
        EXPECT_EQ(h.num, 12);
      }
    }
    if (e.graph_nodes >= 0) {
      ++graphs;
      EXPECT_GT(e.graph_nodes, 10);
      EXPECT_THAT(e.graph_ops, testing::Contains("matmul"));
      EXPECT_THAT(e.graph_ops, testing::Contains("assign"));
    }
  }
  EXPECT_EQ(graphs, 1);
  // Epochs 0 and 2 (histogram_freq 2), for each of the four weights.
  EXPECT_EQ(histograms.size(), 4u);
  EXPECT_EQ(histograms["dense_1/bias/histogram"], (std::vector<int64_t>{0, 2}));
}

// A second fit's batch scalars go on from the first's 12 optimizer steps, as Keras's do.
TEST(TensorBoardCallback, ASecondFitContinuesTheBatchSteps) {
  random::set_seed(5);
  layers::reset_names();
  Sequential model({layers::Input({3}), layers::Dense(1)});
  model.compile({.optimizer = "sgd", .loss = "mse"});
  const Tensor x = random::normal({16, 3});
  const Tensor y = random::normal({16, 1});
  std::vector<std::vector<int64_t>> steps;
  for (const std::string name : {"tb_first_fit", "tb_second_fit"}) {
    const fs::path log_dir = fs::path(testing::TempDir()) / name;
    fs::remove_all(log_dir);
    auto callback =
        std::make_shared<TensorBoard>(log_dir.string(), TensorBoardOptions{.update_freq = 4});
    model.fit({x}, {y}, {.batch_size = 4, .epochs = 3, .verbose = 0, .callbacks = {callback}});
    steps.emplace_back();
    const auto train = scalars_in((log_dir / "train").string());
    for (const auto& [step, value] : train.at("batch_loss")) steps.back().push_back(step);
  }
  EXPECT_EQ(steps[0], (std::vector<int64_t>{4, 8, 12}));
  EXPECT_EQ(steps[1], (std::vector<int64_t>{16, 20, 24}));
}

// The graphs and evaluation steps logged for each way the train step can run.
std::pair<int, std::vector<int64_t>> graphs_and_evaluation_steps(const LoggedFit& fit) {
  int graphs = 0;
  for (const EventRecord& e :
       tensorboard::read_event_file(tensorboard::event_files(fit.log_dir + "/train").at(0)))
    graphs += e.graph_nodes >= 0 ? 1 : 0;
  std::vector<int64_t> steps;
  const auto validation = scalars_in(fit.log_dir + "/validation");
  for (const auto& [step, value] : validation.at("evaluation_loss_vs_iterations"))
    steps.push_back(step);
  return {graphs, steps};
}

TEST(TensorBoardCallback, EagerMultiStepAndLossScaledStepsAreLogged) {
  const std::vector<int64_t> each_epoch{4, 8, 12};
  // An eager step has no graph to draw.
  const auto eager = graphs_and_evaluation_steps(fit_with_tensorboard(
      "tb_eager", {}, {.optimizer = "adam", .loss = "mse", .run_eagerly = true}));
  EXPECT_EQ(eager, std::make_pair(0, each_epoch));
  // Two batches a traced call: the graph is that step's (the one-batch step never traces), and
  // batch scalars come at the end of each group that reaches a multiple of update_freq 3.
  const LoggedFit grouped_fit =
      fit_with_tensorboard("tb_grouped", {.update_freq = 3},
                           {.optimizer = "adam", .loss = "mse", .steps_per_execution = 2});
  EXPECT_EQ(graphs_and_evaluation_steps(grouped_fit), std::make_pair(1, each_epoch));
  std::vector<int64_t> batch_steps;
  const auto grouped_train = scalars_in(grouped_fit.log_dir + "/train");
  for (const auto& [step, value] : grouped_train.at("batch_loss")) batch_steps.push_back(step);
  EXPECT_EQ(batch_steps, (std::vector<int64_t>{4, 6, 10, 12}));
  // Under mixed_float16 the step count is the inner optimizer's, as Keras's.
  layers::set_global_policy("mixed_float16");
  const auto scaled = graphs_and_evaluation_steps(
      fit_with_tensorboard("tb_scaled", {}, {.optimizer = "adam", .loss = "mse"}));
  layers::set_global_policy("float32");
  // Loss scaling skips a step whose float16 gradients overflow (at Keras's initial scale the
  // first may): the count is of the steps applied, not the wrapper's own, which stays 0.
  EXPECT_EQ(scaled.first, 1);
  EXPECT_THAT(scaled.second, testing::ElementsAre(testing::AnyOf(3, 4), testing::AnyOf(7, 8),
                                                  testing::AnyOf(11, 12)));
}

TEST(TensorBoardCallback, KerasArgumentsKilnLacksAreRefusedByName) {
  const Config config = Config::from_json(R"({"write_images": true})");
  try {
    read_fields(config, TensorBoardOptions::fields(), "TensorBoard");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("write_images"));
  }
  const TensorBoardOptions batch = read_fields(Config::from_json(R"({"update_freq": "batch"})"),
                                               TensorBoardOptions::fields(), "TensorBoard");
  EXPECT_EQ(batch.update_freq, 1);
}

}  // namespace
}  // namespace kiln
