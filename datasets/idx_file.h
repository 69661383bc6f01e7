#pragma once
// Reader for the IDX format (MNIST family), plain or gzip-compressed.
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::datasets {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // unsigned-byte payload, row-major
};

// Throws kiln::Error naming the path when the file is missing, truncated or not unsigned-byte IDX.
IdxArray read_idx_u8(const std::string& path);

}  // namespace kiln::datasets
