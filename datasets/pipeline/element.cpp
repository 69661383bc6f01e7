#include "kiln/datasets/pipeline/element.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

std::string signature(const Tensor& t) {
  return detail::concat(dtype_name(t.dtype()), t.shape());
}

// The padded shape of component c: spec's, with -1 axes resolved to variable_length or the
// longest row.
std::vector<int64_t> target_dims(std::span<const Element> rows, size_t c, const PaddingSpec& spec,
                                 std::string_view what, int64_t variable_length) {
  const size_t rank = static_cast<size_t>(rows[0][c].rank());
  std::vector<int64_t> dims(rank, -1);
  if (!spec.padded_shapes.empty()) {
    KILN_CHECK(c < spec.padded_shapes.size(), what, ": padded_shapes has ",
               spec.padded_shapes.size(), " entries but elements have component ", c);
    dims = spec.padded_shapes[c];
    KILN_CHECK(dims.size() == rank, what, ": padded_shapes[", c, "] has ", dims.size(),
               " dims but component ", c, " is ", signature(rows[0][c]));
  }
  for (size_t a = 0; a < rank; ++a) {
    const bool variable = spec.padded_shapes.empty() ? a == 0 : dims[a] == -1;
    if (variable && variable_length >= 0) {
      dims[a] = variable_length;
    } else if (dims[a] == -1) {
      for (const Element& row : rows) dims[a] = std::max(dims[a], row[c].dim(static_cast<int>(a)));
    }
  }
  return dims;
}

// Copies row into the leading corner of `dst`, a [dims] block: one memcpy per run of the last
// axis.
void copy_into_corner(const Tensor& row, const std::vector<int64_t>& dims, char* dst) {
  const size_t item = dtype_size(row.dtype());
  const size_t rank = dims.size();
  if (rank == 0) {
    std::memcpy(dst, row.raw_data(), item);
    return;
  }
  const int64_t run = row.dim(static_cast<int>(rank - 1));
  const int64_t runs = run == 0 ? 0 : row.numel() / run;
  const auto* src = static_cast<const char*>(row.raw_data());
  std::vector<int64_t> index(rank - 1, 0);  // the run's position in the row's outer axes
  for (int64_t r = 0; r < runs; ++r) {
    int64_t offset = 0;  // in elements of dst
    for (size_t a = 0; a + 1 < rank; ++a) offset = (offset + index[a]) * dims[a + 1];
    std::memcpy(dst + static_cast<size_t>(offset) * item, src + static_cast<size_t>(r * run) * item,
                static_cast<size_t>(run) * item);
    for (size_t a = rank - 1; a-- > 0;) {
      if (++index[a] < row.dim(static_cast<int>(a))) break;
      index[a] = 0;
    }
  }
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
    Tensor stacked = Tensor::empty(Shape(std::move(dims)), head.dtype(), Device::cpu());
    const size_t row_bytes = head.nbytes();
    auto* dst = static_cast<char*>(stacked.raw_data());
    for (const Element& row : rows) {
      copy_host_elements(row[c].raw_data(), dst, head.numel(), head.dtype());
      dst += row_bytes;
    }
    out.push_back(std::move(stacked));
  }
  return out;
}

Element pad_rows(std::span<const Element> rows, const PaddingSpec& spec, std::string_view what,
                 int64_t variable_length) {
  KILN_CHECK(!rows.empty(), what, ": no elements to pad");
  const Element& first = rows[0];
  Element out;
  out.reserve(first.size());
  for (size_t c = 0; c < first.size(); ++c) {
    for (size_t r = 0; r < rows.size(); ++r) {
      KILN_CHECK(rows[r].size() == first.size(), what, ": element ", r, " has ", rows[r].size(),
                 " components ", describe(rows[r]), " but element 0 has ", first.size(), " ",
                 describe(first));
      const Tensor& t = rows[r][c];
      KILN_CHECK(t.rank() == first[c].rank() && t.dtype() == first[c].dtype(), what, ": component ",
                 c, " of element ", r, " is ", signature(t), " but element 0 has ",
                 signature(first[c]), "; padding needs one rank and dtype per component");
    }
    KILN_CHECK(first[c].dtype() != DType::string, what, ": component ", c,
               " holds strings, which are not padded; turn them into token ids first "
               "(TextVectorization)");
    const std::vector<int64_t> dims = target_dims(rows, c, spec, what, variable_length);
    for (size_t r = 0; r < rows.size(); ++r)
      for (size_t a = 0; a < dims.size(); ++a)
        KILN_CHECK(rows[r][c].dim(static_cast<int>(a)) <= dims[a], what, ": component ", c,
                   " of element ", r, " is ", signature(rows[r][c]),
                   ", longer than its padded shape ", Shape(dims), " on axis ", a);
    const double value = c < spec.padding_values.size() ? spec.padding_values[c] : 0.0;
    std::vector<int64_t> batch_dims{static_cast<int64_t>(rows.size())};
    batch_dims.insert(batch_dims.end(), dims.begin(), dims.end());
    Tensor padded = full(Shape(std::move(batch_dims)), value, first[c].dtype(), Device::cpu());
    const size_t block_bytes =
        static_cast<size_t>(Shape(dims).numel()) * dtype_size(padded.dtype());
    auto* dst = static_cast<char*>(padded.raw_data());
    for (size_t r = 0; r < rows.size(); ++r)
      copy_into_corner(rows[r][c], dims, dst + r * block_bytes);
    out.push_back(std::move(padded));
  }
  return out;
}

}  // namespace kiln::datasets
