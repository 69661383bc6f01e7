#pragma once
// How the CUDA fused kernel addresses each input of a fused_elementwise node for one set of
// shapes. Host code only, so it is tested without a GPU.
#include <cstdint>
#include <vector>

#include "kiln/framework/core/shape.h"

namespace kiln::cuda {

enum class InputAccess : uint8_t {
  contiguous,  // the output's size: output element i reads element i
  scalar,      // one element, read by every output element
  strided,     // broadcast along some dims: read at an offset computed from the output index
};

struct FusedLayout {
  std::vector<InputAccess> access;  // per input
  // The output's dims the strided inputs' offsets are computed over, outermost first: its
  // size-1 dims dropped and neighbours merged where every strided input is contiguous across
  // them (as cpu::BroadcastPlan merges), so a bias row costs one division per element, not one
  // per output dim. Empty when no input is strided.
  std::vector<int64_t> dims;
  // Per strided input, in input order: its element strides along dims, 0 where it broadcasts.
  std::vector<std::vector<int64_t>> strides;

  int num_strided() const { return static_cast<int>(strides.size()); }
};

// `inputs` broadcast to `out` (as inference checked).
FusedLayout fused_layout(const std::vector<Shape>& inputs, const Shape& out);

}  // namespace kiln::cuda
