// Training from a folder of text files: configs/fortunes_text_folder.yaml on Debian's fortunes
// written a file per fortune, a folder per language. TextVectorization is adapted on the training
// split, the classifier learns the languages, and the saved model (its vocabulary an asset) and
// the checkpoints (the vocabulary adapted again) evaluate as the run did. And `kiln validate`
// finds mistakes in the text sources.
#include <gmock/gmock.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "apps/examples/text_folders.h"
#include "kiln/configs/run.h"
#include "kiln/datasets/csv_file.h"
#include "kiln/datasets/text/fortunes.h"
#include "kiln/training/model/keras_file.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using ::testing::HasSubstr;

class TextRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_text_run_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    examples::write_fortune_folders((dir_ / "fortunes").string(), 800,
                                    datasets::default_fortunes_dir());
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  // The shipped run file on the test's folder, for 3 epochs; `overrides` come last.
  static Config run(const std::string& out, const std::vector<std::string>& overrides = {}) {
    std::vector<std::string> all{"output.dir=" + (dir_ / out).string(),
                                 "data.text_directory.directory=" + (dir_ / "fortunes").string(),
                                 "training.epochs=3"};
    all.insert(all.end(), overrides.begin(), overrides.end());
    return load_run(std::string(KILN_SOURCE_DIR) + "/configs/fortunes_text_folder.yaml", all);
  }

  static std::filesystem::path dir_;
};

std::filesystem::path TextRun::dir_;

TEST_F(TextRun, TheFortunesFolderTrainsALanguageClassifier) {
  const TrainResult result =
      train(run("langid", {"output.save_model=model.keras"}), {.verbose = 0});
  ASSERT_FALSE(result.interrupted);
  const datasets::CsvTable log = datasets::read_csv((dir_ / "langid" / "log.csv").string(),
                                                    {.select_columns = {"val_accuracy"}});
  const float accuracy = log.column("val_accuracy").to_vector<float>().back();
  EXPECT_GE(accuracy, 0.85f);
  // The saved model brings its vocabulary; a checkpoint's weights get it adapted again.
  const double saved = evaluate(run("langid"), result.saved_model).test_scores.at("accuracy");
  const double checkpoint =
      evaluate(run("langid"), (dir_ / "langid" / "latest.checkpoint.h5").string())
          .test_scores.at("accuracy");
  EXPECT_FLOAT_EQ(static_cast<float>(saved), accuracy);
  EXPECT_FLOAT_EQ(static_cast<float>(checkpoint), accuracy);
}

TEST_F(TextRun, ValidateFindsMistakesInTheSources) {
  const std::string fortunes = (dir_ / "fortunes").string();
  const auto error_for = [&](const std::string& key, const std::string& value) {
    return kiln::testing::error_of([&] { validate_run(run("checked", {key + "=" + value})); });
  };
  validate_run(run("checked"));
  EXPECT_THAT(error_for("data.text_directory.directory", fortunes + "/nothing"),
              HasSubstr("no such directory"));
  EXPECT_THAT(error_for("data.text_directory.max_length", "-3"),
              HasSubstr("max_length must be at least 0"));
  EXPECT_THAT(error_for("data.text_directory.label_mode", "sparse"),
              HasSubstr("unknown label_mode 'sparse'"));
  EXPECT_THAT(error_for("data.text_directory.num_parallel_calls", "0"),
              HasSubstr("num_parallel_calls must be autotune or at least 1"));
  EXPECT_THAT(error_for("model.layers.0.TextVectorization.split", "words"),
              HasSubstr("split must be whitespace, character or null, got 'words'"));
  EXPECT_THAT(error_for("data.cache", (dir_ / "nowhere" / "x.cache").string()),
              HasSubstr("the cache file's folder does not exist"));
  EXPECT_THAT(error_for("data.cache", "[1]"), HasSubstr("cache is true (memory) or a file name"));
}

// A cache file holds the decoded examples after the first epoch: the run trains as one without
// it, and the next run reads the file instead of the folder.
TEST_F(TextRun, ACacheFileTrainsAsTheFolderDoesAndServesTheNextRun) {
  const auto last_loss = [&](const std::string& out) {
    const datasets::CsvTable log = datasets::read_csv((dir_ / out / "log.csv").string(),
                                                      {.select_columns = {"loss", "val_loss"}});
    return std::make_pair(log.column("loss").to_vector<float>().back(),
                          log.column("val_loss").to_vector<float>().back());
  };
  const std::string cache = (dir_ / "decoded.cache").string();
  ASSERT_FALSE(train(run("plain", {"training.epochs=2"}), {.verbose = 0}).interrupted);
  ASSERT_FALSE(train(run("cached", {"training.epochs=2", "data.cache=" + cache}), {.verbose = 0})
                   .interrupted);
  EXPECT_TRUE(std::filesystem::exists(cache));
  EXPECT_TRUE(std::filesystem::exists(cache + ".validation"));
  EXPECT_EQ(last_loss("cached"), last_loss("plain"));
  // The next run reads the files, not the folder: a copy of it whose texts all changed trains
  // as the first did.
  const std::filesystem::path changed = dir_ / "changed";
  std::filesystem::copy(dir_ / "fortunes", changed, std::filesystem::copy_options::recursive);
  for (const auto& file : std::filesystem::recursive_directory_iterator(changed))
    if (file.is_regular_file()) std::ofstream(file.path(), std::ios::trunc) << "changed";
  ASSERT_FALSE(train(run("again", {"training.epochs=2", "data.cache=" + cache,
                                   "data.text_directory.directory=" + changed.string()}),
                     {.verbose = 0})
                   .interrupted);
  EXPECT_EQ(last_loss("again"), last_loss("plain"));
}

}  // namespace
}  // namespace kiln::configs
