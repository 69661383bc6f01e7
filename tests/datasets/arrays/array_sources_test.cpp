// The array sources against the files NumPy and h5py wrote (scripts/golden/
// generate_array_fixtures.py): every format gives the same rows, a pass reads them in slabs,
// timeseries windows are Keras's, and bad references are refused naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/datasets/arrays/array_dataset.h"
#include "kiln/datasets/arrays/array_source.h"
#include "kiln/datasets/npy_file.h"
#include "tests/test_support/expect_error.h"

namespace kiln::datasets {
namespace {

struct TimeseriesGolden {
  int64_t sequence_length, sequence_stride, sampling_rate, start_index, end_index;
  std::vector<int64_t> window_rows;  // each window's rows, window after window
  std::vector<int64_t> targets;
};

struct ShuffleGolden {
  int64_t n;
  uint32_t seed;
  std::vector<int64_t> order;
};

#include "tests/datasets/arrays/timeseries_goldens.inc"

std::string fixture(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/datasets/arrays/data/" + name;
}

std::vector<float> series_rows(int64_t begin, int64_t count) {
  std::vector<float> v;
  for (int64_t r = begin; r < begin + count; ++r)
    for (int c = 0; c < 3; ++c) v.push_back(static_cast<float>(100 * r + c));
  return v;
}

TEST(ArraySources, EveryFormatGivesTheSameRows) {
  for (const std::string& reference :
       {fixture("series.npy"), fixture("arrays.npz") + ":series", fixture("stored.npz") + ":series",
        fixture("arrays.h5") + ":series", fixture("arrays.h5") + ":/series"}) {
    SCOPED_TRACE(reference);
    const ArraySourcePtr series = open_array(reference);
    EXPECT_EQ(series->rows(), 50);
    EXPECT_EQ(series->dtype(), DType::f32);
    EXPECT_EQ(series->row_shape(), Shape({3}));
    const Tensor rows = series->read(7, 4);
    EXPECT_EQ(rows.shape(), Shape({4, 3}));
    EXPECT_EQ(rows.to_vector<float>(), series_rows(7, 4));
  }
  for (const std::string& reference : {fixture("labels.npy"), fixture("arrays.npz") + ":labels",
                                       fixture("arrays.h5") + ":group/labels"}) {
    SCOPED_TRACE(reference);
    const ArraySourcePtr labels = open_array(reference);
    EXPECT_EQ(labels->dtype(), DType::i64);
    EXPECT_EQ(labels->row_shape(), Shape({}));
    EXPECT_EQ(labels->read(12, 3).to_vector<int64_t>(), (std::vector<int64_t>{5, 6, 0}));
  }
  for (const std::string& reference : {fixture("bools.npy"), fixture("arrays.h5") + ":bools"}) {
    SCOPED_TRACE(reference);
    const ArraySourcePtr bools = open_array(reference);
    EXPECT_EQ(bools->dtype(), DType::boolean);
    EXPECT_EQ(bools->read(2, 3).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  }
}

TEST(ArraySources, AFolderNameMayHoldAColon) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_arrays:" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture("stored.npz"), dir / "a.npz");
  std::filesystem::copy_file(fixture("series.npy"), dir / "b.npy");
  EXPECT_EQ(open_array((dir / "a.npz").string() + ":labels")->rows(), 50);
  EXPECT_EQ(open_array((dir / "b.npy").string())->rows(), 50);
  std::filesystem::remove_all(dir);
}

TEST(ArraySources, MappedNpyEqualsTheWholeFileRead) {
  const Tensor whole = load_npy(fixture("series.npy"));
  EXPECT_EQ(open_npy(fixture("series.npy"))->read(0, 50).to_vector<float>(),
            whole.to_vector<float>());
}

TEST(ArraySources, BadReferencesAreRefusedNamingTheFile) {
  testing::expect_error([] { (void)open_array(fixture("arrays.npz") + ":serie"); },
                        "has no array 'serie' (it has: series, labels)");
  testing::expect_error([] { (void)open_array(fixture("arrays.npz")); }, "name the array");
  testing::expect_error([] { (void)open_array(fixture("arrays.h5") + ":nothing"); },
                        "arrays.h5 has no dataset 'nothing'");
  testing::expect_error([] { (void)open_array(fixture("arrays.h5") + ":scalar"); },
                        "a scalar dataset has no rows");
  testing::expect_error([] { (void)open_array(fixture("series.npy") + ":x"); },
                        "a .npy file holds one array");
  testing::expect_error([] { (void)open_array(fixture("missing.npy")); }, "missing.npy");
  testing::expect_error([] { (void)open_array(fixture("series.npy") + ".csv:x"); },
                        "unknown array file type");
  testing::expect_error([] { (void)open_array(fixture("missing.h5") + ":x"); }, "no HDF5 file at");
  testing::expect_error([] { (void)open_hdf5(fixture("series.npy"), "x"); },
                        "series.npy is not an HDF5 file");
}

TEST(ArrayDataset, ElementsAreRowsOfEveryColumnInOrder) {
  const Dataset data = array_dataset(
      {open_array(fixture("arrays.h5") + ":series"), open_npy(fixture("labels.npy"))}, 5, 20);
  EXPECT_EQ(data.cardinality(), 15);
  int64_t row = 5;
  for (const Element& e : data) {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].to_vector<float>(), series_rows(row, 1));
    EXPECT_EQ(e[1].item<int64_t>(), row % 7);
    ++row;
  }
  EXPECT_EQ(row, 20);
  testing::expect_error(
      [] {
        (void)array_dataset({open_npy(fixture("series.npy")), open_npy(fixture("series.npy"))}, 0,
                            60);
      },
      "rows [0, 60) of 50");
}

TEST(Timeseries, WindowsAndTargetsAreKerass) {
  for (const TimeseriesGolden& g : kTimeseriesGoldens) {
    SCOPED_TRACE(::testing::Message() << "length " << g.sequence_length << " stride "
                                      << g.sequence_stride << " rate " << g.sampling_rate);
    const TimeseriesOptions o{.sequence_length = g.sequence_length,
                              .sequence_stride = g.sequence_stride,
                              .sampling_rate = g.sampling_rate,
                              .start_index = g.start_index,
                              .end_index = g.end_index};
    std::vector<int64_t> rows, targets;
    for (const Element& e :
         timeseries_dataset(open_npy(fixture("series.npy")), open_npy(fixture("labels.npy")), o)) {
      ASSERT_EQ(e[0].shape(), Shape({g.sequence_length, 3}));
      const std::vector<float> v = e[0].to_vector<float>();
      for (int64_t k = 0; k < g.sequence_length; ++k)
        rows.push_back(static_cast<int64_t>(v[static_cast<size_t>(3 * k)]) / 100);
      targets.push_back(e[1].item<int64_t>());
    }
    EXPECT_EQ(rows, g.window_rows);
    EXPECT_EQ(targets, g.targets);
  }
}

TEST(Timeseries, ShuffledStartsAreNumpysRandomStateShuffle) {
  for (const ShuffleGolden& g : kStartShuffles) {
    const TimeseriesOptions o{.shuffle = true, .seed = g.seed};
    EXPECT_EQ(timeseries_starts(g.n, std::nullopt, o, "series"), g.order) << g.n;
  }
  testing::expect_error(
      [] { (void)timeseries_starts(10, std::nullopt, {.sequence_length = 11}, "temps.npy"); },
      "temps.npy: no window of 11 steps");
  testing::expect_error(
      [] { (void)timeseries_starts(10, std::nullopt, {.sampling_rate = 10}, "temps.npy"); },
      "sampling_rate must be in [1, 10)");
}

}  // namespace
}  // namespace kiln::datasets
