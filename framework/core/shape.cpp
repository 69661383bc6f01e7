#include "kiln/framework/core/shape.h"

#include <algorithm>
#include <sstream>

#include "kiln/framework/core/error.h"

namespace kiln {

bool Shape::is_fully_defined() const {
  return std::all_of(dims_.begin(), dims_.end(), [](int64_t d) { return d >= 0; });
}

int64_t Shape::numel() const {
  if (std::any_of(dims_.begin(), dims_.end(), [](int64_t d) { return d < 0; })) return kUnknownDim;
  // An empty axis empties the shape whatever the others' product (a file's header may claim
  // dims whose product overflows, beside a 0).
  if (std::find(dims_.begin(), dims_.end(), 0) != dims_.end()) return 0;
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> s(dims_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i)
    s[static_cast<size_t>(i)] = s[static_cast<size_t>(i + 1)] * dims_[static_cast<size_t>(i + 1)];
  return s;
}

std::string Shape::to_string() const {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out << ", ";
    if (dims_[i] < 0)
      out << '?';
    else
      out << dims_[i];
  }
  out << ']';
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) {
  return out << shape.to_string();
}

int normalize_axis(int64_t axis, int rank) {
  KILN_SHAPE_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for rank ", rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int> normalize_axes(const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (int64_t a : axes) out.push_back(normalize_axis(a, rank));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank());
    const int ib = i - (rank - b.rank());
    const int64_t da = ia >= 0 ? a[ia] : 1;
    const int64_t db = ib >= 0 ? b[ib] : 1;
    int64_t d;
    if (da == 1)
      d = db;
    else if (db == 1 || da == db)
      d = da;
    else if (da < 0)
      d = db;
    else if (db < 0)
      d = da;
    else
      throw ShapeError(detail::concat("shapes ", a, " and ", b, " cannot be broadcast (dim ", i,
                                      ": ", da, " vs ", db, ")"));
    out[static_cast<size_t>(i)] = d;
  }
  return Shape(std::move(out));
}

}  // namespace kiln
