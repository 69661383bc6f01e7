// Checkpoints and BackupAndRestore: a run killed with SIGKILL mid-epoch and started again ends
// with weights bitwise equal to a run that was never interrupted (same process layout, same
// threads), whether it backed up every few batches or at each epoch's end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/dropout.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/normalization/batch_normalization.h"
#include "kiln/losses/losses.h"
#include "kiln/training/callbacks/backup_and_restore.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/model/summary.h"
#include "kiln/training/model/trainer.h"
#include "kiln/training/saving/checkpoint.h"
#include "kiln/training/saving/inspect.h"

namespace kiln {
namespace {

using namespace layers;

constexpr int kEpochs = 3;

Sequential make_model(const std::string& optimizer = "adam") {
  random::set_seed(11);
  reset_names();
  Sequential model({Input({6}), Dense(16, {.activation = "relu"}), Dropout(0.3),
                    BatchNormalization(), Dense(3)});
  model.compile({.optimizer = optimizer,
                 .loss = std::make_shared<losses::SparseCategoricalCrossentropy>(
                     losses::SparseCategoricalCrossentropyOptions{.from_logits = true})});
  return model;
}

// 200 samples, shuffled each epoch, 13 batches of 16 (the last of 8).
datasets::Dataset make_data() {
  random::Generator gen(5);
  const Tensor x = random::normal({200, 6}, 0, 1, DType::f32, gen);
  const Tensor y = ops::cast(random::uniform({200}, 0, 3, DType::f32, gen), DType::i64);
  return datasets::Dataset::from_tensor_slices({x, y}).shuffle(200, 9).batch(16);
}

std::vector<std::vector<float>> values(const Model& model) {
  std::vector<std::vector<float>> out;
  for (const Variable& v : model.weights()) out.push_back(v.value().to_vector<float>());
  return out;
}

// Kills its own process after a given batch: a run dying without any chance to clean up.
class KillAfter : public Callback {
 public:
  KillAfter(int epoch, int64_t batch) : epoch_(epoch), batch_(batch) {}
  void on_epoch_begin(int epoch, const Logs&) override { current_ = epoch; }
  void on_train_batch_end(int64_t batch, const Logs&) override {
    if (current_ == epoch_ && batch == batch_) raise(SIGKILL);
  }

 private:
  int epoch_;
  int64_t batch_;
  int current_ = 0;
};

// Runs when the parent test starts this binary again with KILN_RESUME_DIR set: trains with
// backups until it kills itself in epoch 1 (the second), after batch 9.
TEST(ResumeAfterKill, ChildTrainsUntilKilled) {
  const char* dir = std::getenv("KILN_RESUME_DIR");
  if (dir == nullptr) GTEST_SKIP() << "runs only as the child of the resume tests";
  Sequential model = make_model();
  const int64_t save_freq = std::atoll(std::getenv("KILN_RESUME_SAVE_FREQ"));
  model.fit(make_data(), {.epochs = kEpochs,
                          .verbose = 0,
                          .callbacks = {std::make_shared<BackupAndRestore>(
                                            dir, BackupAndRestoreOptions{.save_freq = save_freq}),
                                        std::make_shared<KillAfter>(1, 9)}});
  FAIL() << "the run was not killed";
}

// Starts this test binary as the child above and waits for it to die by SIGKILL.
void run_child_until_killed(const std::string& dir, int64_t save_freq) {
  const std::string freq = std::to_string(save_freq);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("KILN_RESUME_DIR", dir.c_str(), 1);
    setenv("KILN_RESUME_SAVE_FREQ", freq.c_str(), 1);
    execl("/proc/self/exe", "engine_tests", "--gtest_filter=ResumeAfterKill.ChildTrainsUntilKilled",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child exited with status " << status;
}

void expect_resume_matches_uninterrupted(int64_t save_freq) {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("kiln_resume_" + std::to_string(getpid()) + "_" + std::to_string(save_freq)))
          .string();
  std::filesystem::remove_all(dir);
  run_child_until_killed(dir, save_freq);
  auto backup =
      std::make_shared<BackupAndRestore>(dir, BackupAndRestoreOptions{.save_freq = save_freq});
  ASSERT_TRUE(std::filesystem::exists(backup->path()));
  const saving::CheckpointInfo info = saving::read_checkpoint_info(backup->path());
  EXPECT_EQ(info.state.epoch, 1);
  // Every 4 batches counted across epochs (as Keras): after epoch 0's 13, at epoch 1's 3rd and
  // 7th; the kill after its 10th loses three.
  EXPECT_EQ(info.state.step, save_freq == 0 ? 0 : 7);
  EXPECT_NE(info.model_config.find("\"Sequential\""), std::string::npos);

  Sequential resumed = make_model();
  resumed.fit(make_data(), {.epochs = kEpochs, .verbose = 0, .callbacks = {backup}});
  EXPECT_FALSE(std::filesystem::exists(backup->path()));  // deleted once fit completes
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(backup->path()).parent_path()));

  Sequential uninterrupted = make_model();
  uninterrupted.fit(make_data(), {.epochs = kEpochs, .verbose = 0});
  EXPECT_EQ(values(resumed), values(uninterrupted));
  EXPECT_EQ(resumed.trainer().optimizer().iterations().value().item<int64_t>(),
            uninterrupted.trainer().optimizer().iterations().value().item<int64_t>());
  std::filesystem::remove_all(dir);
}

TEST(ResumeAfterKill, BackupsEveryFourBatches) {
  expect_resume_matches_uninterrupted(4);
}

TEST(ResumeAfterKill, BackupsAtEpochEnds) {
  expect_resume_matches_uninterrupted(0);
}

TEST(Checkpoint, LoadingChecksTheOptimizerBeforeAssigningAnything) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("kiln_checkpoint_" + std::to_string(getpid()) + ".h5"))
                               .string();
  Sequential adam = make_model("adam");
  adam.fit(make_data(), {.epochs = 1, .verbose = 0});
  saving::save_checkpoint(adam.checkpoint_contents(), path, {1, 0}, R"({"run": "test"})");
  EXPECT_EQ(saving::read_checkpoint_info(path).run_config, R"({"run": "test"})");
  // What `kiln inspect` prints.
  const std::string report = saving::describe_file(path, summary_of_config);
  for (const std::string part : {": kiln checkpoint\n", "epoch 1, step 0", "Model: \"sequential\"",
                                 "layers/batch_normalization/vars/3  [16] float32",
                                 "optimizer 'adam': 14 variables, iterations 13",
                                 "kiln/random_states", "run config: {\"run\": \"test\"}"})
    EXPECT_NE(report.find(part), std::string::npos) << "'" << part << "' not in:\n" << report;

  Sequential sgd = make_model("sgd");
  sgd.fit(make_data(), {.epochs = 1, .verbose = 0, .steps_per_epoch = 1});
  const auto before = values(sgd);
  try {
    saving::load_checkpoint(sgd.checkpoint_contents(), path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "/optimizer/vars: 'sgd' has 2 variables in the model but 14 in the file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(values(sgd), before);
  std::filesystem::remove(path);
}

// Resumes the fit it joins at a given point, as a checkpoint restored in on_train_begin does.
class ResumeAt : public Callback {
 public:
  ResumeAt(int epoch, int64_t step, int64_t iterations = 0)
      : epoch_(epoch), step_(step), iterations_(iterations) {}
  void on_train_begin(const Logs&) override {
    model().trainer().optimizer().iterations().assign(scalar(iterations_, DType::i64));
    model().resume_fit_at(epoch_, step_);
  }

 private:
  int epoch_;
  int64_t step_, iterations_;
};

// A checkpoint that does not fit the run resuming from it is refused, naming the value: it would
// otherwise skip an epoch's batches without a word, or train with a broken optimizer state.
TEST(Checkpoint, AResumePointThatDoesNotFitTheRunIsRefused) {
  const auto error_resuming_at = [](int epoch, int64_t step, int64_t iterations) {
    Sequential model = make_model();
    try {
      model.fit(make_data(), {.epochs = 2,
                              .verbose = 0,
                              .callbacks = {std::make_shared<ResumeAt>(epoch, step, iterations)}});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error_resuming_at(3, 0, 39),
            "fit: the checkpoint resumes at epoch 4, past the 2 this "
            "run trains");
  EXPECT_EQ(error_resuming_at(1, 13, 26),
            "fit: the checkpoint resumes at batch 14 of epoch 2, but an epoch here has 13 batches "
            "(another batch size or data limit than the run that wrote it?)");
  EXPECT_EQ(error_resuming_at(1, 2, -5),
            "fit: the checkpoint's optimizer has taken -5 steps, which is not a count");
  EXPECT_EQ(error_resuming_at(1, 12, 25), "(no error)");  // the last batch of epoch 2
  EXPECT_EQ(error_resuming_at(2, 0, 26), "(no error)");   // a finished run: nothing to train
}

}  // namespace
}  // namespace kiln
