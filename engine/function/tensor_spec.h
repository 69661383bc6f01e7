#pragma once
// TensorSpec: what a traced function accepts for one tensor argument (dims may be unknown, -1;
// the rank may be unknown too), and the rules for casting an argument's dtype to the spec's at
// the boundary instead of retracing.
#include <optional>
#include <string>

#include "kiln/framework/core/device.h"
#include "kiln/framework/core/dtype.h"
#include "kiln/framework/core/shape.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln {

struct TensorSpec {
  Shape shape;
  DType dtype = DType::f32;
  std::string name;
  bool unknown_rank = false;  // matches any rank; each rank seen gets its own trace
  Device device;              // where the argument lives (traces are per device)

  TensorSpec() = default;
  TensorSpec(Shape spec_shape, DType spec_dtype = DType::f32, std::string spec_name = "")
      : shape(std::move(spec_shape)), dtype(spec_dtype), name(std::move(spec_name)) {}
  static TensorSpec any_rank(DType dtype = DType::f32, std::string name = "");
  static TensorSpec from_meta(const TensorMeta& meta);

  // Rank and every known dim agree (dtype is checked separately, it may be cast).
  bool matches_shape(const Shape& actual) const;
  std::string to_string() const;  // TensorSpec(shape=[?, 20], dtype=float32, name='x')
  bool operator==(const TensorSpec&) const = default;
};

// Whether an argument of dtype `from` may be cast to a spec's `to` at the boundary: integers
// and bool widen to wider integers and to floats (labels), floats widen; float narrowing
// (float64 -> float32) only when allowed; int64 -> int32 with a range check when it runs.
// Float to integer or to bool is never allowed. Returns the reason when refused.
std::optional<std::string> refuse_boundary_cast(DType from, DType to, bool allow_float_narrowing);

// x cast to dtype, checking that int64 values fit an int32 target; `what` names the argument.
Tensor boundary_cast(const Tensor& x, DType dtype, const std::string& what);

}  // namespace kiln
