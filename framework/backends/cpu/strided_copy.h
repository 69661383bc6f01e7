#pragma once
// Copies between two strided views of the same element size. Transpose, broadcast, slices and
// their adjoints, concat and pad are all one call of this with different strides.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::cpu {

struct StridedView {
  void* base;                    // address of element [0, 0, ...]
  std::vector<int64_t> strides;  // in elements; may be 0 or negative
};

// dims: the iteration space (same for both views); elem_size: bytes per element.
void strided_copy(const StridedView& dst, const StridedView& src, const std::vector<int64_t>& dims,
                  size_t elem_size);

}  // namespace kiln::cpu
