#pragma once
// A file mapped read-only into memory: pages are read from disk as they are touched, so a slice
// of an array larger than memory costs only its own pages.
#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::datasets {

class MappedFile {
 public:
  // Throws naming the path when the file cannot be opened or mapped.
  explicit MappedFile(std::string path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln::datasets
