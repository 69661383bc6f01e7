#pragma once
// How a collective combines the ranks' values.
#include <cstdint>
#include <string_view>

namespace kiln::distributed {

enum class ReduceOp : int64_t { sum, mean, max };
std::string_view reduce_op_name(ReduceOp op);

}  // namespace kiln::distributed
