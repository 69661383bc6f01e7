// A run trained through configs::train leaves a run directory whose checkpoint evaluate and
// predict load: evaluating it reproduces train's test scores, predictions have a row per input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/configs/run.h"
#include "kiln/configs/yaml_config.h"
#include "kiln/datasets/fashion_mnist.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/training/saving/checkpoint.h"

namespace kiln::configs {
namespace {

TEST(TrainRun, CheckpointsReproduceTheTestScores) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_train_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  Config run = load_run(std::string(KILN_SOURCE_DIR) + "/configs/fashion_mnist_mlp.yaml",
                        {"data.limit=1200", "training.epochs=2", "output.dir=" + dir.string(),
                         "checkpoint.keep_last=1", "checkpoint.save_best_only=false",
                         "checkpoint.filename=epoch{epoch}.h5"});
  const TrainResult trained = train(run, {.verbose = 0});
  ASSERT_FALSE(trained.interrupted);
  ASSERT_TRUE(trained.test_scores.contains("accuracy"));
  for (const char* file : {"config.yaml", "log.csv", "latest.checkpoint.h5"})
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  // keep_last: 1 leaves only the newest of the per-epoch files.
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoints/epoch1.h5"));
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoints/epoch2.h5"));
  // Every full checkpoint of the run holds the resolved run, the checkpoint section's too.
  for (const char* file : {"latest.checkpoint.h5", "checkpoints/epoch2.h5"}) {
    const saving::CheckpointInfo info = saving::read_checkpoint_info((dir / file).string());
    EXPECT_NE(info.run_config.find("{\"Dense\": {\"units\": 10}}"), std::string::npos) << file;
    EXPECT_NE(info.run_config.find("\"limit\": 1200"), std::string::npos) << file;
  }
  // The resolved config reads back: the data fact is filled in.
  const Config resolved = load_yaml_file((dir / "config.yaml").string());
  EXPECT_EQ(resolved["model"]["layers"].at(4)["Dense"]["units"].as_int(), 10);

  const std::string latest = (dir / "latest.checkpoint.h5").string();
  const LoadedRun loaded = evaluate(run, latest);
  EXPECT_EQ(loaded.test_scores, trained.test_scores);

  const datasets::FashionMnist data = datasets::load_fashion_mnist();
  const Tensor rows = ops::slice(data.test.images, {0, 0, 0}, {7, -1, -1});
  const Tensor out = predict(run, latest, rows);
  EXPECT_EQ(out.shape(), Shape({7, 10}));
  EXPECT_EQ(format_scores({{"loss", 0.33121}, {"accuracy", 0.88456}}, "test_"),
            "test_loss: 0.3312 - test_accuracy: 0.8846");
  std::filesystem::remove_all(dir);
}

// A run that diverges (an absurd learning rate) ends with an error, not a success with NaN
// weights, unless the run accepts it.
TEST(TrainRun, ANonFiniteFinalLossFailsTheRun) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_diverges_" + std::to_string(getpid()));
  const std::vector<std::string> diverging = {"data.limit=600", "training.epochs=1",
                                              "output.dir=" + dir.string(),
                                              "optimizer={SGD: {learning_rate: 1e35}}"};
  const std::string file = std::string(KILN_SOURCE_DIR) + "/configs/fashion_mnist_mlp.yaml";
  try {
    train(load_run(file, diverging), {.verbose = 0});
    ADD_FAILURE() << "a run with a non-finite loss succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("training ended with a loss of"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("training.allow_nonfinite_loss: true"), std::string::npos);
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "latest.checkpoint.h5"));  // kept for inspection
  std::vector<std::string> accepted = diverging;
  accepted.push_back("training.allow_nonfinite_loss=true");
  EXPECT_FALSE(train(load_run(file, accepted), {.verbose = 0}).interrupted);
  std::filesystem::remove_all(dir);
}

// A run whose data does not fit its model is refused before its directory is touched: the files
// of the run that trained there before stay as they were, and the corrected run trains.
TEST(TrainRun, DataThatDoesNotFitTheModelLeavesTheRunDirectoryAlone) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_refused_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::vector<std::string> small = {"data.limit=600", "training.epochs=1",
                                          "output.dir=" + dir.string()};
  const std::string file = std::string(KILN_SOURCE_DIR) + "/configs/fashion_mnist_mlp.yaml";
  const auto read = [&](const char* name) {
    std::ifstream in(dir / name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  ASSERT_FALSE(train(load_run(file, small), {.verbose = 0}).interrupted);
  const std::string config = read("config.yaml"), log = read("log.csv");
  const auto before = std::filesystem::last_write_time(dir / "latest.checkpoint.h5");

  std::vector<std::string> wrong = small;
  wrong.push_back("model.input.shape=[28, 27]");
  try {
    train(load_run(file, wrong), {.verbose = 0});
    ADD_FAILURE() << "a model on 28x27 images trained on 28x28 ones";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kiln train (data): model 'fashion_mnist_mlp' input "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("expects shape (None, 28, 27), got (128, 28, 28)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read("config.yaml"), config);
  EXPECT_EQ(read("log.csv"), log);
  EXPECT_EQ(std::filesystem::last_write_time(dir / "latest.checkpoint.h5"), before);
  EXPECT_TRUE(train(load_run(file, small), {.verbose = 0}).test_scores.contains("accuracy"));
  std::filesystem::remove_all(dir);
}

// output.save_model naming something other than a .keras file is refused before any epoch runs
// or the run directory is made, not once training is over.
TEST(TrainRun, ASaveModelThatIsNotAKerasFileIsRefusedBeforeTraining) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kiln_save_model_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const Config run = load_run(std::string(KILN_SOURCE_DIR) + "/configs/fashion_mnist_mlp.yaml",
                              {"data.limit=600", "training.epochs=1", "output.dir=" + dir.string(),
                               "output.save_model=model.h5"});
  try {
    train(run, {.verbose = 0});
    ADD_FAILURE() << "trained with output.save_model=model.h5";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("output.save_model must name a .keras file, got "
                                         "'model.h5'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace kiln::configs
