#include "kiln/engine/function/tensor_spec.h"

#include <limits>
#include <sstream>

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {

TensorSpec TensorSpec::any_rank(DType dtype, std::string name) {
  TensorSpec spec({}, dtype, std::move(name));
  spec.unknown_rank = true;
  return spec;
}

TensorSpec TensorSpec::from_meta(const TensorMeta& meta) {
  TensorSpec spec(meta.shape, meta.dtype);
  spec.device = meta.device;
  return spec;
}

bool TensorSpec::matches_shape(const Shape& actual) const {
  if (unknown_rank) return true;
  if (actual.rank() != shape.rank()) return false;
  for (int i = 0; i < shape.rank(); ++i)
    if (shape[i] != Shape::kUnknownDim && shape[i] != actual[i]) return false;
  return true;
}

std::string TensorSpec::to_string() const {
  std::ostringstream out;
  out << "TensorSpec(shape=";
  if (unknown_rank)
    out << "<unknown rank>";
  else
    out << shape;
  out << ", dtype=" << dtype_name(dtype);
  if (!name.empty()) out << ", name='" << name << '\'';
  if (!device.is_cpu()) out << ", device=" << device;
  out << ')';
  return out.str();
}

std::optional<std::string> refuse_boundary_cast(DType from, DType to, bool allow_float_narrowing) {
  if (from == to) return std::nullopt;
  auto rank = [](DType d) {  // widening order within a kind
    switch (d) {
      case DType::boolean:
        return 0;
      case DType::u8:
        return 1;
      case DType::i32:
        return 2;
      case DType::i64:
        return 3;
      case DType::f16:
      case DType::bf16:
        return 4;
      case DType::f32:
        return 5;
      case DType::f64:
        return 6;
      case DType::string:
        break;
    }
    return 0;
  };
  if (is_string(from) || is_string(to))
    return detail::concat("strings and numbers do not cast into each other (", dtype_name(from),
                          " to ", dtype_name(to), ")");
  if (to == DType::boolean) return "nothing casts to bool without losing values";
  if (is_floating(from) && !is_floating(to))
    return detail::concat("casting ", dtype_name(from), " to ", dtype_name(to),
                          " would truncate values");
  if (!is_floating(from) && is_floating(to)) return std::nullopt;  // labels, token ids, masks
  if (!is_floating(from)) {
    if (rank(to) > rank(from) || (from == DType::i64 && to == DType::i32)) return std::nullopt;
    return detail::concat("casting ", dtype_name(from), " to ", dtype_name(to), " can lose values");
  }
  const bool widening = rank(to) > rank(from) && !(rank(from) == 4 && rank(to) == 4);
  if (widening || allow_float_narrowing) return std::nullopt;
  return detail::concat("casting ", dtype_name(from), " to ", dtype_name(to),
                        " loses precision and float narrowing is not allowed (set "
                        "FunctionOptions::allow_float_narrowing)");
}

Tensor boundary_cast(const Tensor& x, DType dtype, const std::string& what) {
  NoGradGuard no_grad;
  if (x.dtype() == DType::i64 && dtype == DType::i32 && x.numel() > 0) {
    const auto lo = ops::min(x).item<int64_t>();
    const auto hi = ops::max(x).item<int64_t>();
    KILN_CHECK(
        lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max(),
        what, ": int64 values in [", lo, ", ", hi, "] do not fit the int32 input spec");
  }
  return ops::cast(x, dtype);
}

}  // namespace kiln
