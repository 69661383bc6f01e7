#pragma once
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace kiln {

// Dims of a tensor. A dim of kUnknownDim (-1) is unknown: symbolic tensors carry such dims while
// a function is traced for a family of shapes; concrete tensors never do.
class Shape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t operator[](int i) const { return dims_[static_cast<size_t>(i)]; }
  int64_t& operator[](int i) { return dims_[static_cast<size_t>(i)]; }
  // dim(-1) is the last dim, as in Python.
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i < 0 ? i + rank() : i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }

  bool is_fully_defined() const;
  // Product of dims; -1 when any dim is unknown.
  int64_t numel() const;
  // Row-major element strides.
  std::vector<int64_t> strides() const;
  std::string to_string() const;  // "[2, ?, 3]"

  bool operator==(const Shape& other) const = default;

 private:
  std::vector<int64_t> dims_;
};

std::ostream& operator<<(std::ostream& out, const Shape& shape);

// Maps a possibly negative axis into [0, rank); throws ShapeError naming the axis and rank.
int normalize_axis(int64_t axis, int rank);
// Normalizes, sorts and deduplicates a list of axes; an empty list means "all axes".
std::vector<int> normalize_axes(const std::vector<int64_t>& axes, int rank);

// NumPy broadcasting of two shapes. Unknown dims broadcast against 1 to unknown and against a
// known n to n (the runtime shape is checked when concrete). Throws ShapeError on a mismatch.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace kiln
