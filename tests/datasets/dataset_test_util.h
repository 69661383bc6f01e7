#pragma once
// Helpers shared by the datasets tests: small integer datasets, collecting a pass, temp dirs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "tests/test_support/expect_error.h"

namespace kiln::datasets::testing {

// Elements {i} (int64 scalars) for i in [0, n).
inline Dataset range_dataset(int64_t n) {
  return Dataset::from_tensor_slices({arange(n)});
}

// Component 0 of every element of one pass, flattened: scalars give one value per element,
// batches give their rows in order.
inline std::vector<int64_t> values(Iterator it) {
  std::vector<int64_t> out;
  while (std::optional<Element> e = it.next()) {
    const std::vector<int64_t> v = (*e)[0].to_vector<int64_t>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}
inline std::vector<int64_t> values(const Dataset& ds, uint64_t pass) {
  return values(ds.iterator(pass));
}

// Component 0 of every element, one vector per element (the rows of each batch).
inline std::vector<std::vector<int64_t>> batches(const Dataset& ds, uint64_t pass = 0) {
  std::vector<std::vector<int64_t>> out;
  for (Iterator it = ds.iterator(pass); std::optional<Element> e = it.next();)
    out.push_back((*e)[0].to_vector<int64_t>());
  return out;
}

// Error messages are read as in every module's tests.
using kiln::testing::error_of;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("kiln_datasets_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kiln::datasets::testing
