#pragma once
// Small pieces shared by the op families' inference and gradient code.
#include <span>
#include <string_view>

#include "framework/core/error.h"
#include "framework/ops/op_def.h"
#include "framework/ops/ops.h"
#include "framework/tensor/tensor.h"

namespace kiln::defs {

inline void require_floating(const TensorMeta& m, std::string_view what = "input") {
  KILN_SHAPE_CHECK(is_floating(m.dtype), "expects a floating ", what, ", got ",
                   dtype_name(m.dtype));
}
inline void require_numeric(const TensorMeta& m) {
  KILN_SHAPE_CHECK(m.dtype != DType::boolean, "expects a numeric input, got bool");
}
inline void require_integral_indices(const TensorMeta& m) {
  KILN_SHAPE_CHECK(m.dtype == DType::i32 || m.dtype == DType::i64,
                   "indices must be int32 or int64, got ", dtype_name(m.dtype));
}
inline void require_same_dtype(const TensorMeta& a, const TensorMeta& b) {
  KILN_SHAPE_CHECK(a.dtype == b.dtype, "operand dtypes differ (", dtype_name(a.dtype), " vs ",
                   dtype_name(b.dtype), ")");
}

// 1 where cond holds, else 0, in `dtype` (gradient masks).
inline Tensor mask_of(const Tensor& cond, DType dtype) {
  return ops::cast(cond, dtype);
}

inline void def(OpTable& t, OpId op, const char* name, int inputs, InferFn infer, GradFn grad) {
  t[op].name = name;
  t[op].num_inputs = inputs;
  t[op].infer = infer;
  t[op].grad = grad;
}

}  // namespace kiln::defs
