#pragma once
// Elements as binary records, for Dataset::cache's file: per element its component count, then
// per component its dtype, rank, dims and data (a string's length before its bytes), in this
// machine's byte order. A file is the magic line, the records, and an end record holding their
// count, so a file cut short is told from a complete one.
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "kiln/datasets/pipeline/element.h"

namespace kiln::datasets {

class ElementRecordWriter {
 public:
  // Creates (truncates) `path`.
  explicit ElementRecordWriter(std::string path);
  void write(const Element& element);
  // Writes the end record and closes the file; throws, naming the file, if any write failed.
  void finish();

 private:
  std::string path_;
  std::ofstream out_;
  int64_t count_ = 0;
};

class ElementRecordReader {
 public:
  // Opens `path`, refusing a file that is not a record file.
  explicit ElementRecordReader(std::string path);
  // The next element; nullopt at the end record (and on every later call). A file cut short, or
  // damaged, is refused naming it and the element.
  std::optional<Element> next();

 private:
  std::string path_;
  std::ifstream in_;
  uint64_t file_size_ = 0;  // no component holds more elements than the file has bytes
  int64_t index_ = 0;
  bool ended_ = false;
};

}  // namespace kiln::datasets
