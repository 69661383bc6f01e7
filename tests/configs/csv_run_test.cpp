// A run file that trains on the user's CSV file through the csv data source: the data section's
// forms (the source beside batch_size and the splits), the data's facts in the model, and a
// model that learns the file's rule; `kiln validate` finds mistakes in the source's arguments.
#include <gmock/gmock.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

#include "kiln/configs/run.h"
#include "kiln/datasets/csv/csv_rows.h"
#include "kiln/datasets/csv/csv_source.h"
#include "kiln/datasets/csv_file.h"
#include "kiln/framework/core/error.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using ::testing::HasSubstr;

class CsvRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_csv_run_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    // The class follows x + (red ? 1 : -1) > 0, with a noise column the model must ignore.
    std::ofstream csv(dir_ / "points.csv");
    csv << "x,color,noise,class\n";
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> uniform(-2, 2);
    for (int i = 0; i < 400; ++i) {
      const double x = uniform(gen), noise = uniform(gen);
      const bool red = i % 3 != 0;
      csv << x << "," << (red ? "red" : "blue") << "," << noise << ","
          << (x + (red ? 1 : -1) > 0 ? "inside" : "outside") << "\n";
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string run_file(const std::string& source) {
    const std::string path = (dir_ / "run.yaml").string();
    std::ofstream(path) << "model:\n"
                           "  input: {shape: [\"${data.num_features}\"]}\n"
                           "  layers:\n"
                           "    - Dense: {units: 16, activation: relu}\n"
                           "    - Dense: {units: \"${data.num_classes}\"}\n"
                           "data:\n"
                           "  "
                        << source
                        << "\n"
                           "  batch_size: 16\n"
                           "  validation_split: 0.25\n"
                           "loss: {SparseCategoricalCrossentropy: {from_logits: true}}\n"
                           "optimizer: {Adam: {learning_rate: 0.02}}\n"
                           "metrics: [accuracy]\n"
                           "training: {epochs: 25}\n"
                           "output: {dir: "
                        << (dir_ / "out").string() << "}\n";
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(CsvRun, TrainsOnTheFilesRule) {
  const Config run =
      load_run(run_file("csv: {path: " + (dir_ / "*.csv").string() + ", label: class}"));
  validate_run(run);
  const TrainResult result = train(run, {.verbose = 0});
  ASSERT_FALSE(result.interrupted);
  // log.csv's last epoch: the rule, learnt from 300 rows, holds on the 100 held out.
  const datasets::CsvTable log =
      datasets::read_csv((dir_ / "out" / "log.csv").string(), {.select_columns = {"val_accuracy"}});
  const std::vector<float> accuracy = log.column("val_accuracy").to_vector<float>();
  ASSERT_EQ(accuracy.size(), 25u);
  EXPECT_GE(accuracy.back(), 0.9f);
}

// The run's vocabularies (the colors' one-hot positions, the classes' indices) are saved beside
// it, and evaluating on another file keeps them: one holding only blue points, all outside,
// would otherwise give one color and one class.
TEST_F(CsvRun, EvaluationKeepsTheRunsVocabularies) {
  const TrainResult result =
      train(load_run(run_file("csv: {path: " + (dir_ / "points.csv").string() + ", label: class}")),
            {.verbose = 0});
  ASSERT_FALSE(result.interrupted);
  const std::string saved = (dir_ / "out" / "vocabularies.json").string();
  ASSERT_TRUE(std::filesystem::exists(saved));
  std::ofstream other(dir_ / "blue.csv");
  other << "x,color,noise,class\n";
  for (int i = 0; i < 80; ++i) other << -2 + 0.035 * i << ",blue," << 0.5 << ",outside\n";
  other.close();
  const Config on_blue =
      load_run(run_file("csv: {path: " + (dir_ / "blue.csv").string() + ", label: class}"));
  const std::string checkpoint = (dir_ / "out" / "latest.checkpoint.h5").string();
  EXPECT_GE(evaluate(on_blue, checkpoint).test_scores.at("accuracy"), 0.9);
  // A class the run never saw is refused by name.
  std::ofstream elsewhere(dir_ / "elsewhere.csv");
  elsewhere << "x,color,noise,class\n";
  for (int i = 0; i < 40; ++i) elsewhere << "0.5,red,0.5,elsewhere\n";
  elsewhere.close();
  EXPECT_THAT(kiln::testing::error_of([&] {
                (void)evaluate(
                    load_run(run_file("csv: {path: " + (dir_ / "elsewhere.csv").string() +
                                      ", label: class}")),
                    checkpoint);
              }),
              ::testing::MatchesRegex(".*elsewhere\\.csv:[0-9]+:4 \\(column 'class'\\): the "
                                      "label 'elsewhere' is none of the 2 classes.*"));
  // Without them the file's own vocabularies do not fit the model.
  std::filesystem::remove(saved);
  EXPECT_THAT(kiln::testing::error_of([&] { (void)evaluate(on_blue, checkpoint); }),
              HasSubstr("'dense/kernel' has shape [3, 16] in the model but [4, 16] in the file"));
  // A later run in the directory without string columns leaves no vocabularies of the earlier.
  std::ofstream(saved) << "{}";
  std::ofstream numbers(dir_ / "numbers.csv");
  numbers << "x,class\n";
  for (int i = 0; i < 40; ++i) numbers << i << "," << i % 2 << "\n";
  numbers.close();
  ASSERT_FALSE(train(load_run(run_file("csv: {path: " + (dir_ / "numbers.csv").string() +
                                       ", label: class}")),
                     {.verbose = 0})
                   .interrupted);
  EXPECT_FALSE(std::filesystem::exists(saved));
}

// Real files as Debian's python3-sklearn ships them: configs/iris_csv.yaml learns the species;
// wine's and breast cancer's files read with their counts line skipped.
TEST_F(CsvRun, TheSklearnFilesTrainAsTheyAre) {
  const Config run = load_run(std::string(KILN_SOURCE_DIR) + "/configs/iris_csv.yaml",
                              {"output.dir=" + (dir_ / "iris").string()});
  const TrainResult result = train(run, {.verbose = 0});
  ASSERT_FALSE(result.interrupted);
  const datasets::CsvTable log = datasets::read_csv((dir_ / "iris" / "log.csv").string(),
                                                    {.select_columns = {"val_accuracy"}});
  EXPECT_GE(log.column("val_accuracy").to_vector<float>().back(), 0.9f);

  for (const auto& [file, rows, classes] :
       {std::tuple{"wine_data.csv", 178, 3}, std::tuple{"breast_cancer.csv", 569, 2}}) {
    const datasets::CsvSourceOptions options{
        .paths = {"/usr/local/share/kiln/sklearn/" + std::string(file)},
        .header = false,
        .skip_rows = 1};
    // Unnamed columns are "0", "1", ...: the label is the last.
    const std::vector<std::string> names = datasets::CsvRows(options).names();
    datasets::CsvSourceOptions labelled = options;
    labelled.label = names.back();
    const datasets::CsvSchema schema = datasets::scan_csv(labelled);
    EXPECT_EQ(schema.rows, rows) << file;
    EXPECT_EQ(schema.label_classes, classes) << file;
    EXPECT_EQ(schema.feature_width(), static_cast<int64_t>(names.size()) - 1) << file;
  }
}

// A file with no rows to train on is refused before training, naming it.
TEST_F(CsvRun, NoTrainingRowsIsAnError) {
  const std::string empty = (dir_ / "empty.csv").string();
  std::ofstream(empty) << "x,color,noise,class\n";
  kiln::testing::expect_error(
      [&] { (void)train(load_run(run_file("csv: {path: " + empty + ", label: class}")), {}); },
      empty + ": no training rows (0 good rows");
}

TEST_F(CsvRun, ValidateFindsMistakesInTheSource) {
  const auto error_for = [&](const std::string& source) {
    return kiln::testing::error_of([&] { validate_run(load_run(run_file(source))); });
  };
  const std::string csv = (dir_ / "points.csv").string();
  EXPECT_THAT(error_for("csv: {path: " + csv + ", label: klass}"),
              HasSubstr("no column 'klass'; did you mean 'class'?"));
  EXPECT_THAT(error_for("csv: {path: " + csv + ", lable: class}"),
              HasSubstr("unknown key 'lable' for csv"));
  EXPECT_THAT(error_for("csv: {path: " + (dir_ / "none*.csv").string() + "}"),
              HasSubstr("no file matches"));
  EXPECT_THAT(error_for("cvs: {path: " + csv + "}"),
              HasSubstr("unknown data source 'cvs'; did you mean 'csv'?"));
  EXPECT_THAT(error_for("csv: {path: " + csv + ", column_types: {x: decimal}}"),
              HasSubstr("unknown CSV column type 'decimal'"));
  EXPECT_THAT(error_for("csv: {path: " + csv + "}\n  batch_sise: 3"),
              HasSubstr("unknown key 'batch_sise' for data"));
  // The run file's place of the mistake is named.
  EXPECT_THAT(error_for("csv: {path: " + csv + ", label: klass}"), HasSubstr("run.yaml:7:"));
}

}  // namespace
}  // namespace kiln::configs
