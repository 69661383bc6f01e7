#include "kiln/layers/spatial_args.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

std::vector<int64_t> per_axis(const std::vector<int64_t>& value, int rank, std::string_view what,
                              int64_t minimum) {
  KILN_CHECK(value.size() == 1 || static_cast<int>(value.size()) == rank, what, " needs 1 or ",
             rank, " values, got ", value.size());
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    const int64_t v = value.size() == 1 ? value[0] : value[static_cast<size_t>(i)];
    KILN_CHECK(v >= minimum, what, minimum > 0 ? " must be positive" : " must not be negative",
               ", got ", v);
    out.push_back(v);
  }
  return out;
}

}  // namespace kiln::layers
