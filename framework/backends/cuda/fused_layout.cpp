#include "kiln/framework/backends/cuda/fused_layout.h"

#include <cstddef>

namespace kiln::cuda {
namespace {

// An input's element strides along each of out's dims, 0 where it broadcasts.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  const int rank = out.rank();
  std::vector<int64_t> strides(static_cast<size_t>(rank));
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int j = i - (rank - in.rank());
    const int64_t d = j >= 0 ? in[j] : 1;
    strides[static_cast<size_t>(i)] = (d == 1 && out[i] != 1) ? 0 : stride;
    stride *= d;
  }
  return strides;
}

}  // namespace

FusedLayout fused_layout(const std::vector<Shape>& inputs, const Shape& out) {
  FusedLayout layout;
  std::vector<std::vector<int64_t>> raw;
  // An input with as many elements as the output has its dims (broadcasting only adds
  // elements), so it is read in the output's order.
  for (const Shape& in : inputs) {
    const int64_t n = in.numel();
    if (n == out.numel()) {
      layout.access.push_back(InputAccess::contiguous);
    } else if (n == 1) {
      layout.access.push_back(InputAccess::scalar);
    } else {
      layout.access.push_back(InputAccess::strided);
      raw.push_back(broadcast_strides(in, out));
    }
  }
  if (raw.empty()) return layout;
  layout.strides.resize(raw.size());
  for (int i = 0; i < out.rank(); ++i) {
    const int64_t d = out[i];
    if (d == 1) continue;  // size-1 dims never move an offset
    const auto at = static_cast<size_t>(i);
    bool merge = !layout.dims.empty();
    for (size_t k = 0; k < raw.size() && merge; ++k)
      merge = layout.strides[k].back() == raw[k][at] * d;
    if (merge) {
      layout.dims.back() *= d;
      for (size_t k = 0; k < raw.size(); ++k) layout.strides[k].back() = raw[k][at];
    } else {
      layout.dims.push_back(d);
      for (size_t k = 0; k < raw.size(); ++k) layout.strides[k].push_back(raw[k][at]);
    }
  }
  return layout;
}

}  // namespace kiln::cuda
