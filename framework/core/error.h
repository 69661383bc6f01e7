#pragma once
// Errors kiln raises. Every message names the thing that went wrong (op, layer, file, shapes)
// so a user can act on it without a debugger.
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised by shape/dtype inference; the op dispatcher prefixes the op name and its inputs.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// Raised when code reads the values of a symbolic tensor (one being traced, or a shape-only
// check's stand-in): it computes from values, not shapes.
class SymbolicValueError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <typename... Args>
std::string concat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}
}  // namespace detail

}  // namespace kiln

// KILN_CHECK(cond, parts...) throws kiln::Error built from the streamed parts when cond is false.
#define KILN_CHECK(cond, ...)                                              \
  do {                                                                     \
    if (!(cond)) throw ::kiln::Error(::kiln::detail::concat(__VA_ARGS__)); \
  } while (0)

// KILN_SHAPE_CHECK is for inference code: the dispatcher adds the op name and operands.
#define KILN_SHAPE_CHECK(cond, ...)                                             \
  do {                                                                          \
    if (!(cond)) throw ::kiln::ShapeError(::kiln::detail::concat(__VA_ARGS__)); \
  } while (0)
