#pragma once
// The single path every primitive op takes: infer the output, then either record a symbolic
// node (tracing), return a view, or allocate and run the backend's kernel; record the node for
// autodiff when an input requires gradients.
#include <span>
#include <vector>

#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/op_list.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln {

Tensor apply(OpId op, std::vector<Tensor> inputs, Attrs attrs = {});
// An op with several outputs (OpDef::num_outputs, of infer_output_metas; not differentiable).
// Traced, output 0 is the node and output k its tuple_get k.
std::vector<Tensor> apply_multi(OpId op, std::vector<Tensor> inputs, Attrs attrs = {});

// Shape/dtype inference with errors that name the op and its operands.
TensorMeta infer_meta(OpId op, std::span<const TensorMeta> inputs, const Attrs& attrs);
// Every output's meta: infer_meta's, then OpDef::infer_more's, or copies of the first.
std::vector<TensorMeta> infer_output_metas(OpId op, std::span<const TensorMeta> inputs,
                                           const Attrs& attrs);

// Runs op's kernel into a caller-owned output of the right meta (executor, benchmarks), and into
// more_outputs for an op with several.
void run_kernel(OpId op, std::span<const Tensor> inputs, const Tensor& output, const Attrs& attrs,
                std::span<const Tensor> more_outputs = {});

// "float32[2, 3]" for messages.
std::string describe(const TensorMeta& meta);

}  // namespace kiln
