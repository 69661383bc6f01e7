// Keras callbacks: EarlyStopping, ReduceLROnPlateau, CSVLogger, LearningRateScheduler,
// TerminateOnNaN, LambdaCallback and the progress bar's line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/optimizers/registry.h"
#include "kiln/training/callbacks/csv_logger.h"
#include "kiln/training/callbacks/early_stopping.h"
#include "kiln/training/callbacks/progbar_logger.h"
#include "kiln/training/callbacks/reduce_lr_on_plateau.h"
#include "kiln/training/callbacks/simple_callbacks.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/trainer.h"

namespace kiln {
namespace {

// Ends an epoch with these logs, which the callback may add to; returns them.
Logs end_epoch(Callback& callback, int epoch, Logs logs) {
  callback.on_epoch_end(epoch, logs);
  return logs;
}

std::unique_ptr<Sequential> regression_model() {
  auto model = std::make_unique<Sequential>(
      std::vector<layers::LayerRef>{layers::Input({2}), layers::Dense(1)});
  model->compile({.optimizer = "sgd", .loss = "mse"});
  return model;
}

TEST(Callbacks, EarlyStoppingStopsAfterPatienceAndRestoresTheBestWeights) {
  auto model = regression_model();
  EarlyStopping stop({.monitor = "val_loss", .patience = 2, .restore_best_weights = true});
  stop.set_model(model.get());
  stop.on_train_begin({});
  const std::vector<Tensor> best = model->get_weights();
  end_epoch(stop, 0, {{"val_loss", 1.0}});
  model->set_weights({ones({2, 1}), ones({1})});
  end_epoch(stop, 1, {{"val_loss", 1.5}});
  EXPECT_FALSE(model->stop_training);
  end_epoch(stop, 2, {{"val_loss", 1.2}});
  EXPECT_TRUE(model->stop_training);
  EXPECT_EQ(stop.stopped_epoch(), 2);
  EXPECT_EQ(stop.best_epoch(), 0);
  stop.on_train_end({});
  EXPECT_EQ(model->get_weights()[0].to_vector<float>(), best[0].to_vector<float>());
}

// Keras 3: the best value starts at the worst, not at the baseline; patience restarts only on an
// epoch that beats both. No epoch beats 0.5 here, so patience runs from the first epoch, and the
// best one (1) is still restored.
TEST(Callbacks, EarlyStoppingBaselineDelaysPatienceAndTheBestEpochIsKept) {
  auto model = regression_model();
  EarlyStopping stop(
      {.monitor = "val_loss", .patience = 2, .baseline = 0.5, .restore_best_weights = true});
  stop.set_model(model.get());
  stop.on_train_begin({});
  end_epoch(stop, 0, {{"val_loss", 0.9}});
  model->set_weights({ones({2, 1}), ones({1})});
  const std::vector<Tensor> best = model->get_weights();
  end_epoch(stop, 1, {{"val_loss", 0.7}});
  EXPECT_FALSE(model->stop_training);
  model->set_weights({zeros({2, 1}), zeros({1})});
  end_epoch(stop, 2, {{"val_loss", 0.8}});
  EXPECT_TRUE(model->stop_training);
  EXPECT_EQ(stop.stopped_epoch(), 2);
  EXPECT_EQ(stop.best_epoch(), 1);
  stop.on_train_end({});
  EXPECT_EQ(model->get_weights()[0].to_vector<float>(), best[0].to_vector<float>());
}

TEST(Callbacks, EarlyStoppingVerboseSaysWhenItStopsAndRestores) {
  auto model = regression_model();
  EarlyStopping stop({.patience = 0, .restore_best_weights = true, .verbose = 1});
  stop.set_model(model.get());
  stop.on_train_begin({});
  testing::internal::CaptureStdout();
  end_epoch(stop, 0, {{"val_loss", 1.0}});
  end_epoch(stop, 1, {{"val_loss", 2.0}});
  stop.on_train_end({});
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "Epoch 2: early stopping\n"
            "Restoring model weights from the end of the best epoch: 1.\n");
}

TEST(Callbacks, EarlyStoppingModeAutoTreatsAccuracyAsHigherIsBetter) {
  auto model = regression_model();
  EarlyStopping stop({.monitor = "val_accuracy", .patience = 1});
  stop.set_model(model.get());
  stop.on_train_begin({});
  end_epoch(stop, 0, {{"val_accuracy", 0.5}});
  end_epoch(stop, 1, {{"val_accuracy", 0.7}});
  EXPECT_FALSE(model->stop_training);
  end_epoch(stop, 2, {{"val_accuracy", 0.6}});
  EXPECT_TRUE(model->stop_training);
}

TEST(Callbacks, ReduceLROnPlateauCutsTheRateAfterPatienceThenCoolsDown) {
  auto model = regression_model();
  model->trainer().optimizer().set_learning_rate(0.1);
  ReduceLROnPlateau reduce({.monitor = "loss", .factor = 0.5, .patience = 2, .cooldown = 2});
  reduce.set_model(model.get());
  reduce.on_train_begin({});
  for (int epoch = 0; epoch < 2; ++epoch) end_epoch(reduce, epoch, {{"loss", 1.0}});
  // An epoch logs the rate it trained at, before a cut.
  EXPECT_NEAR(end_epoch(reduce, 2, {{"loss", 1.0}}).at("learning_rate"), 0.1, 1e-7);
  EXPECT_NEAR(model->trainer().optimizer().learning_rate(), 0.05, 1e-7);
  // As in Keras, the epoch that ends the cooldown already counts toward patience: epoch 3 cools
  // down, epochs 4 and 5 wait, and epoch 5 cuts again.
  end_epoch(reduce, 3, {{"loss", 1.0}});
  end_epoch(reduce, 4, {{"loss", 1.0}});
  EXPECT_NEAR(model->trainer().optimizer().learning_rate(), 0.05, 1e-7);
  end_epoch(reduce, 5, {{"loss", 1.0}});
  EXPECT_NEAR(model->trainer().optimizer().learning_rate(), 0.025, 1e-7);
}

TEST(Callbacks, CsvLoggerAndSchedulerAndLambdaDuringFit) {
  auto model = regression_model();
  const Tensor x = ops::reshape(arange(0, 16, 1, DType::f32), {8, 2}) * 0.1;
  const Tensor y = ops::sum(x, {1}, true);
  const std::string path =
      (std::filesystem::temp_directory_path() / "kiln_csv_logger_test.csv").string();
  int epochs_seen = 0;
  model->fit(x, y,
             {.batch_size = 4,
              .epochs = 3,
              .verbose = 0,
              .callbacks = {std::make_shared<CSVLogger>(path),
                            std::make_shared<LearningRateScheduler>(
                                [](int epoch, double) { return 0.1 / (epoch + 1); }),
                            std::make_shared<LambdaCallback>(LambdaCallbackHooks{
                                .on_epoch_end = [&](int, const Logs&) { ++epochs_seen; }})}});
  EXPECT_EQ(epochs_seen, 3);
  EXPECT_NEAR(model->trainer().optimizer().learning_rate(), 0.1 / 3, 1e-7);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string csv = text.str();
  EXPECT_THAT(csv, testing::StartsWith("epoch,loss\n0,"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  std::filesystem::remove(path);
  // The traced step read the new rates without retracing.
  EXPECT_EQ(model->trainer().train_stats().traces, 1);
}

// As in Keras, the learning-rate callbacks add the epoch's rate to its logs, and History and a
// CSVLogger after them record it.
TEST(Callbacks, LearningRateReachesHistoryAndLaterCallbacks) {
  auto model = regression_model();
  const Tensor x = ops::reshape(arange(0, 16, 1, DType::f32), {8, 2}) * 0.1;
  const std::string path =
      (std::filesystem::temp_directory_path() / "kiln_learning_rate_log_test.csv").string();
  const History history =
      model->fit(x, ops::sum(x, {1}, true),
                 {.batch_size = 4,
                  .epochs = 2,
                  .verbose = 0,
                  .callbacks = {std::make_shared<LearningRateScheduler>(
                                    [](int epoch, double) { return 0.1 / (epoch + 1); }),
                                std::make_shared<CSVLogger>(path)}});
  const std::vector<double>& rates = history.history.at("learning_rate");
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_NEAR(rates[0], 0.1, 1e-7);
  EXPECT_NEAR(rates[1], 0.05, 1e-7);
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "epoch,learning_rate,loss");
  in.close();
  std::filesystem::remove(path);
}

// A full disk (/dev/full) ends the run with an error naming the file and the OS's reason, instead
// of a log that silently lacks epochs.
TEST(Callbacks, CsvLoggerReportsARowThatCannotBeWritten) {
  CSVLogger logger("/dev/full");
  logger.on_train_begin({});
  try {
    end_epoch(logger, 0, {{"loss", 0.5}});
    ADD_FAILURE() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("CSVLogger: cannot write '/dev/full': No space left "
                                             "on device"));
  }
}

// A run resumed from the checkpoint of 2 epochs trains epoch 2 again; a run killed after logging
// epoch 2 but before its checkpoint had already written that row.
TEST(Callbacks, ResumingDropsTheRowsOfTheEpochsTrainedAgain) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "kiln_resumed_log_test.csv").string();
  std::ofstream(path) << "epoch,loss\n0,0.9\n1,0.5\n2,0.4\n";
  drop_csv_rows_from(path, 2);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "epoch,loss\n0,0.9\n1,0.5\n");
  std::filesystem::remove(path);
  drop_csv_rows_from(path, 2);  // no log yet: nothing to do
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Callbacks, TerminateOnNaNStopsTraining) {
  auto model = regression_model();
  TerminateOnNaN terminate;
  terminate.set_model(model.get());
  terminate.on_train_batch_end(0, {{"loss", 1.0}});
  EXPECT_FALSE(model->stop_training);
  terminate.on_train_batch_end(1, {{"loss", std::nan("")}});
  EXPECT_TRUE(model->stop_training);
}

TEST(Callbacks, ProgressLineHasKerasLayout) {
  const Logs logs{{"accuracy", 0.85123}, {"loss", 0.42131}};
  EXPECT_EQ(ProgbarLogger::format_line(469, 469, 2.0, logs, true, false),
            "469/469 ━━━━━━━━━━━━━━━━━━━━ 2s 4ms/step - accuracy: 0.8512 - loss: 0.4213");
  EXPECT_EQ(ProgbarLogger::format_line(47, 469, 0.5, {{"loss", 0.00001}}, false, false),
            " 47/469 ━━                   4s 11ms/step - loss: 1.0000e-05");
}

TEST(Callbacks, ProgressPrintsOneLinePerEpochWithValidationWhenNotATerminal) {
  auto model = regression_model();
  const Tensor x = ops::reshape(arange(0, 40, 1, DType::f32), {20, 2}) * 0.05;
  const Tensor y = ops::sum(x, {1}, true);
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  model->fit(x, y,
             {.batch_size = 4,
              .epochs = 2,
              .verbose = 2,
              .callbacks = {std::make_shared<ProgbarLogger>(file)},
              .validation_split = 0.2});
  std::rewind(file);
  std::string printed;
  for (int ch = std::fgetc(file); ch != EOF; ch = std::fgetc(file))
    printed += static_cast<char>(ch);
  std::fclose(file);
  // 16 training samples in batches of 4; the validation adds val_ entries, not a line.
  std::vector<std::string> lines;
  std::istringstream stream(printed);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << printed;
  EXPECT_EQ(lines[0], "Epoch 1/2");
  EXPECT_THAT(lines[1], testing::StartsWith("4/4 ━━━━━━━━━━━━━━━━━━━━ "));
  EXPECT_THAT(lines[1], testing::HasSubstr("/step - loss: "));
  EXPECT_THAT(lines[1], testing::HasSubstr(" - val_loss: "));
  EXPECT_EQ(lines[2], "Epoch 2/2");
}

}  // namespace
}  // namespace kiln
