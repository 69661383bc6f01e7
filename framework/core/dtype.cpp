#include "kiln/framework/core/dtype.h"

#include <array>

namespace kiln {
namespace {
struct DTypeInfo {
  std::string_view name;
  size_t size;
  int rank;  // position in the promotion lattice
};
constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
    {"float32", 4, 6},
    {"float64", 8, 7},
    {"float16", 2, 4},
    {"bfloat16", 2, 4},
    {"int32", 4, 2},
    {"int64", 8, 3},
    {"uint8", 1, 1},
    {"bool", 1, 0},
    {"string", sizeof(std::string), -1},
}};
const DTypeInfo& info(DType d) {
  return kInfo[static_cast<size_t>(d)];
}
}  // namespace

size_t dtype_size(DType dtype) {
  return info(dtype).size;
}
std::string_view dtype_name(DType dtype) {
  return info(dtype).name;
}

DType dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[static_cast<size_t>(i)].name == name) return static_cast<DType>(i);
  if (name == "float") return DType::f32;
  if (name == "double") return DType::f64;
  if (name == "half") return DType::f16;
  throw Error(detail::concat("unknown dtype '", name,
                             "' (expected float32, float64, float16, bfloat16, int32, int64, "
                             "uint8, bool or string)"));
}

bool is_floating(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16;
}
bool is_integral(DType d) {
  return !is_floating(d) && d != DType::string;
}
bool is_string(DType d) {
  return d == DType::string;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::string || b == DType::string)
    throw Error(detail::concat("no arithmetic mixes ", dtype_name(a), " with ", dtype_name(b)));
  if ((a == DType::f16 && b == DType::bf16) || (a == DType::bf16 && b == DType::f16))
    return DType::f32;
  return info(a).rank >= info(b).rank ? a : b;
}

std::ostream& operator<<(std::ostream& out, DType dtype) {
  return out << dtype_name(dtype);
}

}  // namespace kiln
