#include "datasets/idx_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "datasets/fashion_mnist.h"
#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

std::string write_gz(const std::string& name, const std::vector<uint8_t>& bytes) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return path;
}

TEST(IdxFile, ReadsDimsAndPayload) {
  const std::string path =
      write_gz("kiln_idx_ok.gz", {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6});
  const IdxArray a = read_idx_u8(path);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
}

TEST(IdxFile, TruncatedFileNamesThePath) {
  const std::string path = write_gz("kiln_idx_short.gz", {0, 0, 8, 1, 0, 0, 0, 9, 1, 2});
  try {
    (void)read_idx_u8(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(FashionMnist, MissingDirectoryNamesThePathAndThePackage) {
  try {
    (void)load_fashion_mnist("/nonexistent/fmnist");
    FAIL();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("/nonexistent/fmnist"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dataset-fashion-mnist"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace kiln::datasets
