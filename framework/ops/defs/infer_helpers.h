#pragma once
// Small pieces shared by the op families' inference and gradient code.
#include <span>
#include <string_view>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/tensor/tensor.h"

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

// Backward ops that produce their forward input's shape (conv2d_backprop_input, avg_pool2d_grad,
// strided_slice_grad) carry it in an attr. While tracing with an unknown batch that shape has
// unknown dims, so the gradient also passes the forward input as a last, shape-only input, whose
// concrete dims the plan for each batch size reads.
inline std::vector<Tensor> with_shape_source(std::vector<Tensor> inputs, const Tensor& forward) {
  if (!forward.shape().is_fully_defined()) inputs.push_back(forward);
  return inputs;
}
// The attr's shape with unknown dims filled from the shape source, when there is one.
inline Shape forward_shape(std::span<const TensorMeta> in, size_t data_inputs, const Attrs& attrs,
                           const char* key) {
  std::vector<int64_t> dims = attrs.get_ints(key);
  KILN_SHAPE_CHECK(in.size() == data_inputs || in.size() == data_inputs + 1, "expects ",
                   data_inputs, " inputs and an optional shape source, got ", in.size());
  if (in.size() == data_inputs) return Shape(std::move(dims));
  const Shape& source = in[data_inputs].shape;
  KILN_SHAPE_CHECK(static_cast<size_t>(source.rank()) == dims.size(), "the shape source ", source,
                   " does not have the rank of ", Shape(dims));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0) dims[i] = source[static_cast<int>(i)];
  return Shape(std::move(dims));
}

inline void def(OpTable& t, OpId op, const char* name, int inputs, InferFn infer, GradFn grad) {
  t[op].name = name;
  t[op].num_inputs = inputs;
  t[op].infer = infer;
  t[op].grad = grad;
}

}  // namespace kiln::defs
