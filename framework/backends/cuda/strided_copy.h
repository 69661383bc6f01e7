#pragma once
// Copies between two strided views of device memory with the same element size, on the
// device's stream: the CUDA twin of cpu::strided_copy, through which transpose, broadcast,
// slices and their adjoints, concat and pad move data. Fills too (pad's border, a slice
// gradient's zeros).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::cuda {

struct DeviceView {
  void* base;                    // address of element [0, 0, ...]
  std::vector<int64_t> strides;  // in elements; may be 0 or negative
};

// dims: the iteration space (the same for both views); elem_size: 1, 2, 4 or 8 bytes.
void strided_copy(const DeviceView& dst, const DeviceView& src, const std::vector<int64_t>& dims,
                  size_t elem_size, int device);

}  // namespace kiln::cuda
