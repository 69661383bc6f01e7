// ModelCheckpoint: file names from Keras templates, save_best_only against the monitored value,
// weights-only files and full checkpoints every N batches.
#include "kiln/training/callbacks/model_checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/training/callbacks/filename_template.h"
#include "kiln/training/model/sequential.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln {
namespace {

using namespace layers;

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

Sequential make_model() {
  random::set_seed(2);
  reset_names();
  Sequential model({Input({4}), Dense(8, {.activation = "tanh"}), Dense(1)});
  model.compile({.optimizer = "adam", .loss = "mse"});
  return model;
}

std::pair<Tensor, Tensor> data() {
  random::Generator gen(8);
  const Tensor x = random::normal({64, 4}, 0, 1, DType::f32, gen);
  return {x, ops::sum(x, {1}, true) * 0.5};
}

TEST(FilenameTemplate, FillsKerasStyleFields) {
  const std::map<std::string, double> v{{"epoch", 3}, {"val_loss", 0.123456}, {"loss", 2.5e-7}};
  EXPECT_EQ(format_filename("ckpt-{epoch:02d}-{val_loss:.4f}.h5", v), "ckpt-03-0.1235.h5");
  EXPECT_EQ(format_filename("{epoch}_{loss:.2e}", v), "3_2.50e-07");
  EXPECT_EQ(format_filename("plain.weights.h5", v), "plain.weights.h5");
  try {
    format_filename("{val_los}.h5", v);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no value named 'val_los' (did you mean 'val_loss'?)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(format_filename("{epoch:02x}", v), Error);
  EXPECT_THROW(format_filename("{epoch", v), Error);
}

TEST(ModelCheckpoint, SavesTheBestEpochsWeights) {
  const auto dir = fresh_dir("best");
  Sequential model = make_model();
  const auto [x, y] = data();
  auto checkpoint = std::make_shared<ModelCheckpoint>(
      (dir / "ckpt-{epoch:02d}-{val_loss:.4f}.weights.h5").string(),
      ModelCheckpointOptions{.save_best_only = true});
  const History history = model.fit(x, y,
                                    {.batch_size = 16,
                                     .epochs = 6,
                                     .verbose = 0,
                                     .callbacks = {checkpoint},
                                     .validation_split = 0.25});
  // One file per epoch that improved on the best val_loss so far.
  const std::vector<double>& val = history.history.at("val_loss");
  size_t improvements = 0;
  double best = 1e300;
  for (double v : val)
    if (v < best) best = v, ++improvements;
  size_t files = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, improvements);
  EXPECT_DOUBLE_EQ(checkpoint->best(), best);
  // The last file holds the weights of the best epoch, whose val_loss it names.
  char expected_name[32];
  std::snprintf(expected_name, sizeof expected_name, "%.4f.weights.h5", best);
  EXPECT_NE(checkpoint->last_saved().find(expected_name), std::string::npos);
  Sequential loaded = make_model();
  loaded.build_from({Shape({-1, 4})});
  loaded.load_weights(checkpoint->last_saved());
  std::filesystem::remove_all(dir);
}

TEST(ModelCheckpoint, FullCheckpointsEveryNBatchesRecordWhereTrainingStood) {
  const auto dir = fresh_dir("every");
  Sequential model = make_model();
  const auto [x, y] = data();
  auto checkpoint = std::make_shared<ModelCheckpoint>((dir / "e{epoch}-b{batch}.h5").string(),
                                                      ModelCheckpointOptions{.save_freq = 3});
  model.fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0, .callbacks = {checkpoint}});
  // 4 batches an epoch, a save every 3 counted across epochs: after batches 3 and 6 (epoch 2's
  // 2nd).
  EXPECT_TRUE(std::filesystem::exists(dir / "e1-b3.h5"));
  const saving::CheckpointInfo info = saving::read_checkpoint_info((dir / "e2-b2.h5").string());
  EXPECT_EQ(info.state.epoch, 1);
  EXPECT_EQ(info.state.step, 2);
  EXPECT_THROW(ModelCheckpoint("weights.h5", {.save_weights_only = true}), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kiln
