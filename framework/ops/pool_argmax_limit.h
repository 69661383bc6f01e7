#pragma once
// The largest max-pool window whose argmax max_pool2d_with_argmax keeps: positions are stored as
// uint8, and oneDNN stores its max-pooling workspace as uint8 (the layout kiln hands over as the
// argmax) only for windows of at most 255 cells.
#include <cstdint>

namespace kiln {

inline constexpr int64_t kMaxArgmaxWindowCells = 255;

}  // namespace kiln
