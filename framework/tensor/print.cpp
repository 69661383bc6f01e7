// NumPy-like printing: nested brackets, long axes elided with "...".
#include <iomanip>
#include <sstream>

#include "kiln/framework/tensor/tensor.h"

namespace kiln {
namespace {

constexpr int64_t kEdgeItems = 3;
constexpr int64_t kSummarizeOver = 1000;

void print_axis(std::ostream& out, const std::vector<double>& values, const Shape& shape,
                const std::vector<int64_t>& strides, int axis, int64_t base, bool summarize,
                bool integral) {
  if (axis == shape.rank()) {
    const double v = values[static_cast<size_t>(base)];
    if (integral)
      out << static_cast<int64_t>(v);
    else
      out << std::setprecision(6) << v;
    return;
  }
  const int64_t n = shape[axis];
  std::vector<int64_t> shown;  // -1 marks the elided middle
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      shown.push_back(-1);
      i = n - kEdgeItems - 1;
      continue;
    }
    shown.push_back(i);
  }
  out << '[';
  const std::string separator =
      axis + 1 < shape.rank() ? ",\n" + std::string(static_cast<size_t>(axis + 1), ' ') : ", ";
  for (size_t k = 0; k < shown.size(); ++k) {
    if (k) out << separator;
    if (shown[k] < 0)
      out << "...";
    else
      print_axis(out, values, shape, strides, axis + 1,
                 base + shown[k] * strides[static_cast<size_t>(axis)], summarize, integral);
  }
  out << ']';
}

}  // namespace

std::string Tensor::to_string() const {
  std::ostringstream out;
  if (!defined()) return "Tensor(undefined)";
  if (is_symbolic()) {
    out << "Tensor(symbolic, shape=" << shape() << ", dtype=" << dtype_name(dtype()) << ")";
    return out.str();
  }
  const std::vector<double> values = to_vector<double>();
  out << "Tensor(";
  print_axis(out, values, shape(), shape().strides(), 0, 0, numel() > kSummarizeOver,
             is_integral(dtype()));
  out << ", shape=" << shape() << ", dtype=" << dtype_name(dtype());
  if (!device().is_cpu()) out << ", device=" << device();
  out << ")";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  return out << t.to_string();
}

}  // namespace kiln
