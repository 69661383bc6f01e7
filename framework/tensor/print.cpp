// NumPy-like printing: nested brackets, long axes elided with "...".
#include <functional>
#include <iomanip>
#include <sstream>

#include "kiln/framework/tensor/tensor.h"

namespace kiln {
namespace {

constexpr int64_t kEdgeItems = 3;
constexpr int64_t kSummarizeOver = 1000;

using PrintElement = std::function<void(std::ostream&, int64_t)>;

void print_axis(std::ostream& out, const PrintElement& element, const Shape& shape,
                const std::vector<int64_t>& strides, int axis, int64_t base, bool summarize) {
  if (axis == shape.rank()) {
    element(out, base);
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
      print_axis(out, element, shape, strides, axis + 1,
                 base + shown[k] * strides[static_cast<size_t>(axis)], summarize);
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
  std::vector<double> values;
  PrintElement element;
  if (dtype() == DType::string) {
    const std::string* text = data<std::string>();
    element = [text](std::ostream& o, int64_t i) { o << std::quoted(text[i]); };
  } else {
    values = to_vector<double>();
    element = [&values, integral = is_integral(dtype())](std::ostream& o, int64_t i) {
      const double v = values[static_cast<size_t>(i)];
      if (integral)
        o << static_cast<int64_t>(v);
      else
        o << std::setprecision(6) << v;
    };
  }
  out << "Tensor(";
  print_axis(out, element, shape(), shape().strides(), 0, 0, numel() > kSummarizeOver);
  out << ", shape=" << shape() << ", dtype=" << dtype_name(dtype());
  if (!device().is_cpu()) out << ", device=" << device();
  out << ")";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  return out << t.to_string();
}

}  // namespace kiln
