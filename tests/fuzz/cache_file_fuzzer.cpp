// libFuzzer target: any bytes as a cache file (Dataset::cache(filename)'s element records). Read
// directly and through a cached dataset's replay, every element comes back or the file is refused
// with kiln::Error, never a crash, hang, leak or an allocation the file's size does not allow; a
// file that reads whole is written again by the writer and reads back to the same elements.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/pipeline/element_records.h"
#include "kiln/framework/core/error.h"

namespace {

namespace fs = std::filesystem;
using kiln::datasets::Element;

std::string scratch(const char* name) {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("kiln_cache_fuzz_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return (dir / name).string();
}

std::vector<Element> read_all(const std::string& path) {
  std::vector<Element> elements;
  kiln::datasets::ElementRecordReader reader(path);
  while (std::optional<Element> e = reader.next()) elements.push_back(std::move(*e));
  return elements;
}

bool same(const kiln::Tensor& a, const kiln::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() != kiln::DType::string)
    return std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = scratch("input.cache");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::vector<Element> elements;
  try {
    elements = read_all(path);
  } catch (const kiln::Error&) {
    return 0;
  }
  // The same file replayed by a cached dataset (whose upstream never runs: the file exists).
  const auto unused = kiln::datasets::Dataset::from_tensor_slices({kiln::arange(1)});
  size_t replayed = 0;
  for (const Element& e : unused.cache(path)) {
    (void)e;
    ++replayed;
  }
  if (replayed != elements.size()) __builtin_trap();
  // Written again, it reads back the same.
  const std::string copy = scratch("copy.cache");
  kiln::datasets::ElementRecordWriter writer(copy);
  for (const Element& e : elements) writer.write(e);
  writer.finish();
  const std::vector<Element> again = read_all(copy);
  if (again.size() != elements.size()) __builtin_trap();
  for (size_t i = 0; i < again.size(); ++i) {
    if (again[i].size() != elements[i].size()) __builtin_trap();
    for (size_t c = 0; c < again[i].size(); ++c)
      if (!same(again[i][c], elements[i][c])) __builtin_trap();
  }
  return 0;
}
