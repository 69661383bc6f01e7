#include "datasets/pipeline/element.h"

#include <cstring>
#include <sstream>

#include "framework/core/error.h"

namespace kiln::datasets {
namespace {

std::string signature(const Tensor& t) {
  return detail::concat(dtype_name(t.dtype()), t.shape());
}

}  // namespace

std::string describe(const Element& element) {
  std::ostringstream out;
  out << "(";
  for (size_t c = 0; c < element.size(); ++c) out << (c ? ", " : "") << signature(element[c]);
  out << ")";
  return out.str();
}

Element stack_rows(std::span<const Element> rows, std::string_view what) {
  KILN_CHECK(!rows.empty(), what, ": no elements to stack");
  const Element& first = rows[0];
  for (size_t r = 1; r < rows.size(); ++r)
    KILN_CHECK(rows[r].size() == first.size(), what, ": element ", r, " has ", rows[r].size(),
               " components ", describe(rows[r]), " but element 0 has ", first.size(), " ",
               describe(first));
  Element out;
  out.reserve(first.size());
  for (size_t c = 0; c < first.size(); ++c) {
    const Tensor& head = first[c];
    for (size_t r = 0; r < rows.size(); ++r) {
      const Tensor& t = rows[r][c];
      KILN_CHECK(t.device().is_cpu(), what, ": component ", c, " of element ", r, " is on ",
                 t.device(), "; datasets hold CPU tensors");
      KILN_CHECK(t.shape() == head.shape() && t.dtype() == head.dtype(), what, ": component ", c,
                 " of element ", r, " is ", signature(t), " but element 0 has ", signature(head),
                 "; components must match to be stacked (map them to one shape first)");
    }
    std::vector<int64_t> dims{static_cast<int64_t>(rows.size())};
    dims.insert(dims.end(), head.shape().begin(), head.shape().end());
    Tensor stacked = Tensor::empty(Shape(std::move(dims)), head.dtype());
    const size_t row_bytes = head.nbytes();
    auto* dst = static_cast<char*>(stacked.raw_data());
    for (const Element& row : rows) {
      std::memcpy(dst, row[c].raw_data(), row_bytes);
      dst += row_bytes;
    }
    out.push_back(std::move(stacked));
  }
  return out;
}

}  // namespace kiln::datasets
