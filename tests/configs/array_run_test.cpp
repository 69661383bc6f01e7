// Run files over arrays in their files: npy trains a model on the arrays' rule, npz and hdf5
// give the same rows and splits from NumPy's and h5py's files, timeseries windows split by time,
// and `kiln validate` names a bad member at its line in the run file.
#include <gmock/gmock.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kiln/configs/data_builder.h"
#include "kiln/configs/run.h"
#include "kiln/configs/yaml_config.h"
#include "kiln/datasets/csv_file.h"
#include "kiln/datasets/npy_file.h"
#include "kiln/framework/random/random.h"
#include "tests/test_support/expect_error.h"

namespace kiln::configs {
namespace {

using ::testing::HasSubstr;

std::string fixture(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/datasets/arrays/data/" + name;
}

// Rows and batches of a pass.
std::pair<int64_t, int64_t> count(const datasets::Dataset& data) {
  int64_t rows = 0, batches = 0;
  for (const datasets::Element& e : data) {
    rows += e[0].dim(0);
    ++batches;
  }
  return {rows, batches};
}

RunData data_of(const std::string& yaml) {
  const Config data = parse_yaml(yaml, "run.yaml");
  check_data(data);
  return build_data(data, 7);
}

class ArrayRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kiln_array_run_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ArrayRun, NpyFilesTrainAModelOnTheirRule) {
  random::set_seed(5);
  const Tensor x = random::uniform({400, 2}, -1, 1);
  const std::vector<float> v = x.to_vector<float>();
  std::vector<int64_t> y;
  for (size_t i = 0; i < v.size(); i += 2) y.push_back(v[i] + v[i + 1] > 0 ? 1 : 0);
  datasets::save_npy((dir_ / "x.npy").string(), x);
  datasets::save_npy((dir_ / "y.npy").string(), from_vector(y, {400}));
  const std::string run_path = (dir_ / "run.yaml").string();
  std::ofstream(run_path) << "model:\n"
                             "  input: {shape: [\"${data.num_features}\"]}\n"
                             "  layers:\n"
                             "    - Dense: {units: 8, activation: relu}\n"
                             "    - Dense: {units: \"${data.num_classes}\"}\n"
                             "data:\n"
                             "  npy: {x: "
                          << (dir_ / "x.npy").string() << ", y: " << (dir_ / "y.npy").string()
                          << "}\n"
                             "  batch_size: 16\n"
                             "  validation_split: 0.25\n"
                             "loss: {SparseCategoricalCrossentropy: {from_logits: true}}\n"
                             "optimizer: {Adam: {learning_rate: 0.05}}\n"
                             "metrics: [accuracy]\n"
                             "training: {epochs: 15}\n"
                             "output: {dir: "
                          << (dir_ / "out").string() << "}\n";
  const Config run = load_run(run_path);
  validate_run(run);
  ASSERT_FALSE(train(run, {.verbose = 0}).interrupted);
  const datasets::CsvTable log =
      datasets::read_csv((dir_ / "out" / "log.csv").string(), {.select_columns = {"val_accuracy"}});
  EXPECT_GE(log.column("val_accuracy").to_vector<float>().back(), 0.9f);
}

TEST_F(ArrayRun, NpzAndHdf5GiveTheRowsAndSplitsOfTheirArrays) {
  for (const std::string& source :
       {"npz: {path: " + fixture("arrays.npz") + ", x: series, y: labels}",
        "hdf5: {path: " + fixture("arrays.h5") + ", x: /series, y: group/labels}",
        "npy: {x: " + fixture("series.npy") + ", y: " + fixture("labels.npy") + "}"}) {
    SCOPED_TRACE(source);
    const RunData data = data_of(source + "\nbatch_size: 8\nvalidation_split: 0.2\n");
    EXPECT_EQ(count(data.train), std::make_pair(int64_t{40}, int64_t{5}));
    ASSERT_TRUE(data.validation);
    EXPECT_EQ(count(*data.validation), std::make_pair(int64_t{10}, int64_t{2}));
    EXPECT_EQ(data.facts.at("num_features").as_int(), 3);
    EXPECT_EQ(data.facts.at("num_classes").as_int(), 7);
    // The held-out rows are the last ten, in order.
    const datasets::Element first = *data.validation->begin();
    EXPECT_EQ(first[0].to_vector<float>()[0], 4000.0f);
    EXPECT_EQ(first[1].to_vector<int64_t>()[0], 40 % 7);
  }
}

TEST_F(ArrayRun, TimeseriesWindowsSplitByTime) {
  const RunData data = data_of("timeseries: {data: " + fixture("series.npy") +
                               ", targets: " + fixture("labels.npy") +
                               ", sequence_length: 5}\nbatch_size: 4\nvalidation_split: 0.25\n");
  // 46 windows: the first 34 train (shuffled), the last 12 validate in order.
  int64_t rows = 0;
  for (const datasets::Element& e : data.train) {
    EXPECT_EQ(e[0].shape(), Shape({e[0].dim(0), 5, 3}));
    // Every window starts before row 34 (its first value is 100 * the row).
    const std::vector<float> v = e[0].to_vector<float>();
    for (int64_t w = 0; w < e[0].dim(0); ++w) EXPECT_LT(v[static_cast<size_t>(w * 15)], 3400.0f);
    rows += e[0].dim(0);
  }
  EXPECT_EQ(rows, 34);
  const datasets::Element held = *data.validation->begin();
  EXPECT_EQ(held[0].to_vector<float>()[0], 3400.0f);
  EXPECT_EQ(held[1].to_vector<int64_t>()[0], 34 % 7);
}

TEST_F(ArrayRun, ValidateNamesBadArraysAtTheirLine) {
  EXPECT_THAT(kiln::testing::error_of([] {
                check_data(parse_yaml("npz:\n  path: " + fixture("arrays.npz") + "\n  x: serie\n",
                                      "run.yaml"));
              }),
              HasSubstr("run.yaml:3"));
  EXPECT_THAT(
      kiln::testing::error_of([] {
        check_data(parse_yaml("timeseries: {data: " + fixture("series.npy") + "}", "run.yaml"));
      }),
      HasSubstr("timeseries needs a sequence_length"));
  EXPECT_THAT(kiln::testing::error_of([] {
                check_data(parse_yaml("npy: {x: " + fixture("series.npy") + ", z: 1}", "run.yaml"));
              }),
              HasSubstr("unknown key 'z'"));
}

}  // namespace
}  // namespace kiln::configs
