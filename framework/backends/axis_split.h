#pragma once
// A tensor viewed as (outer, axis, inner) around one axis: how gather and scatter_add address
// rows on every backend (kernels take it by value).
#include <cstdint>

#include "kiln/framework/core/shape.h"

namespace kiln {

struct AxisSplit {
  int64_t outer = 1, axis = 1, inner = 1;
};

inline AxisSplit split_at(const Shape& s, int axis) {
  AxisSplit r;
  for (int i = 0; i < s.rank(); ++i) {
    if (i < axis)
      r.outer *= s[i];
    else if (i == axis)
      r.axis = s[i];
    else
      r.inner *= s[i];
  }
  return r;
}

}  // namespace kiln
