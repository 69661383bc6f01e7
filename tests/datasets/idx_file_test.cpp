#include "kiln/datasets/idx_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

std::string write_gz(const TempDir& dir, const std::string& name,
                     const std::vector<uint8_t>& bytes) {
  const std::string path = dir.file(name);
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return path;
}

TEST(IdxFile, ReadsDimsAndPayload) {
  const TempDir dir;
  const std::string path =
      write_gz(dir, "ok.gz", {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6});
  const IdxArray a = read_idx_u8(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
}

TEST(IdxFile, TruncatedFileNamesThePath) {
  const TempDir dir;
  const std::string path = write_gz(dir, "short.gz", {0, 0, 8, 1, 0, 0, 0, 9, 1, 2});
  const std::string msg = error_of([&] { (void)read_idx_u8(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
}

// A corrupt header's dims are not taken at their word: a count past 2^64 is refused, and a huge
// one ends in "truncated" once the data runs out instead of allocating it up front.
TEST(IdxFile, CorruptDimsAreErrorsNamingThePath) {
  const TempDir dir;
  const std::string wraps = write_gz(
      dir, "wraps.gz",
      {0, 0, 8, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  EXPECT_EQ(error_of([&] { (void)read_idx_u8(wraps); }),
            wraps + ": corrupt IDX header (its dims multiply past 2^64)");
  const std::string huge =
      write_gz(dir, "huge.gz", {0, 0, 8, 2, 0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 1});
  EXPECT_EQ(error_of([&] { (void)read_idx_u8(huge); }), huge + ": truncated or corrupt IDX file");
}

}  // namespace
}  // namespace kiln::datasets::testing
