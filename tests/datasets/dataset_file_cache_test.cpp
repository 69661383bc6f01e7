// cache(filename): the first complete pass is written to a file, whole or not at all; later
// passes, and later datasets (another run), read it instead of running upstream.
#include <gmock/gmock.h>

#include <fstream>

#include "kiln/framework/ops/ops.h"
#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

Dataset counting_map(int& calls, int64_t n) {
  return range_dataset(n).map([&calls](const Element& e) {
    ++calls;
    return Element{e[0] + scalar(100, DType::i64)};
  });
}

TEST(FileCache, LaterPassesAndLaterRunsReadTheFile) {
  const TempDir dir;
  const std::string path = dir.file("train.cache");
  int calls = 0;
  const Dataset cached = counting_map(calls, 5).cache(path);
  EXPECT_EQ(values(cached, 0), (std::vector<int64_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(calls, 5);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(values(cached, 1), values(cached, 0));
  EXPECT_EQ(calls, 5);
  // A pass read from the file stays at its end when asked again.
  Iterator read = cached.iterator();
  while (read.next()) {
  }
  EXPECT_FALSE(read.next().has_value());
  // Another run's dataset over the same file reads it without running its upstream.
  int fresh_calls = 0;
  EXPECT_EQ(values(counting_map(fresh_calls, 5).cache(path), 0).size(), 5u);
  EXPECT_EQ(fresh_calls, 0);
}

TEST(FileCache, KeepsEveryComponentsDtypeShapeAndStrings) {
  const TempDir dir;
  const Dataset source = Dataset::from_tensor_slices(
      {from_vector<float>({0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}, {3, 2}),
       strings(std::vector<std::string>{"", "two words", std::string("nul\0byte", 8)}),
       from_vector<uint8_t>({1, 2, 3}, {3}, DType::u8)});
  const Dataset cached = source.cache(dir.file("mixed.cache"));
  for (const uint64_t pass : {0u, 1u}) {
    Iterator written = source.iterator();
    Iterator read = cached.iterator(pass);
    for (int i = 0; i < 3; ++i) {
      const Element want = *written.next();
      const Element got = *read.next();
      ASSERT_EQ(got.size(), 3u);
      EXPECT_EQ(got[0].shape(), Shape{2});
      EXPECT_EQ(got[0].to_vector<float>(), want[0].to_vector<float>());
      EXPECT_EQ(got[1].dtype(), DType::string);
      EXPECT_EQ(*got[1].data<std::string>(), *want[1].data<std::string>());
      EXPECT_EQ(got[2].dtype(), DType::u8);
      EXPECT_EQ(got[2].to_vector<int64_t>(), want[2].to_vector<int64_t>());
    }
    EXPECT_FALSE(read.next().has_value());
  }
}

TEST(FileCache, AnAbandonedPassLeavesNoFile) {
  const TempDir dir;
  const std::string path = dir.file("train.cache");
  int calls = 0;
  const Dataset cached = counting_map(calls, 5).cache(path);
  {
    Iterator partial = cached.iterator();
    partial.next();
    partial.next();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir.path()));  // its partial file went with it
  EXPECT_EQ(values(cached, 1).size(), 5u);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(values(cached, 2).size(), 5u);
  EXPECT_EQ(calls, 7);
}

TEST(FileCache, AKilledRunsPartialFileIsRemoved) {
  const TempDir dir;
  const std::string path = dir.file("train.cache");
  // No process has pid 2^22 + 1 (above Linux's pid_max limit).
  std::ofstream(path + ".partial-4194305-0") << "half a pass";
  int calls = 0;
  (void)counting_map(calls, 3).cache(path);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(FileCache, AFileCutShortOrNotACacheIsRefusedByName) {
  const TempDir dir;
  const std::string path = dir.file("train.cache");
  int calls = 0;
  (void)values(counting_map(calls, 5).cache(path), 0);
  const auto size = fs::file_size(path);
  fs::resize_file(path, size - 12);  // the end record: element count and marker
  EXPECT_THAT(error_of([&] { (void)values(counting_map(calls, 5).cache(path), 0); }),
              HasSubstr("train.cache: element 5: the file ends before it, without its end record"));
  fs::resize_file(path, size - 14);
  EXPECT_THAT(error_of([&] { (void)values(counting_map(calls, 5).cache(path), 0); }),
              HasSubstr("train.cache: element 4: the file ends inside it"));
  std::ofstream(path, std::ios::trunc) << "x,y\n1,2\n";
  EXPECT_THAT(error_of([&] { (void)values(counting_map(calls, 5).cache(path), 0); }),
              HasSubstr("train.cache: not a kiln cache file"));
  EXPECT_THAT(error_of([&] { (void)range_dataset(2).cache(dir.file("no/such/folder/x")); }),
              HasSubstr("the cache file's folder does not exist"));
}

}  // namespace
}  // namespace kiln::datasets::testing
