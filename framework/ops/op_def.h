#pragma once
// One entry of the op table: shape/dtype inference, gradient, optional view, one kernel per
// backend. Inference works on unknown dims so the same entry serves tracing.
#include <array>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/framework/core/device.h"
#include "kiln/framework/graph/node.h"
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/ops/op_list.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln {

struct KernelContext {
  std::span<const Tensor> inputs;
  const Tensor& output;  // allocated by the caller with the inferred meta
  const Attrs& attrs;
  const NodePayload* payload = nullptr;  // the graph node's (a fused op's program)
  // An op's outputs after the first (OpDef::num_outputs, metas from infer_output_metas); an
  // undefined one is not used and is not written.
  std::span<const Tensor> more_outputs{};
};
using KernelFn = void (*)(const KernelContext&);

// A kernel bound to one set of shapes and attrs: what the graph executor keeps per step so a
// planned run neither looks up a primitive cache nor allocates (oneDNN primitives and memory
// handles are made once; each run only points them at the data).
class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  virtual void run(const KernelContext& c) const = 0;
};
// Called with the shapes, dtypes and attrs of a step (tensors without data); returns nullptr
// where the plain kernel is as good (a reference loop, say).
using PrepareFn = std::unique_ptr<PreparedKernel> (*)(const KernelContext& c);

// Throws ShapeError with a reason; the dispatcher adds the op name and operands.
using InferFn = TensorMeta (*)(std::span<const TensorMeta> inputs, const Attrs& attrs);
// The metas of an op's outputs after the first, given its inputs, attrs and first output.
using InferMoreFn = std::vector<TensorMeta> (*)(std::span<const TensorMeta> inputs,
                                                const Attrs& attrs, const TensorMeta& first);

struct GradContext {
  const Node& node;
  const Tensor& output;
  const Tensor& grad;              // d(loss)/d(output)
  const std::vector<bool>& needs;  // which inputs want a gradient
  const Tensor& input(size_t i) const { return node.inputs[i]; }
  const Attrs& attrs() const { return node.attrs; }
};
// Returns one gradient per input (undefined where none is needed or the input is not
// differentiable), written with public ops so it records and traces like forward code.
using GradFn = std::vector<Tensor> (*)(const GradContext&);

// Ops that only reinterpret their input's storage (reshape) return a view instead of running a
// kernel.
using ViewFn = Tensor (*)(const Tensor& input, const TensorMeta& out, const Attrs& attrs);

struct OpDef {
  const char* name = nullptr;
  int num_inputs = 1;  // -1 for variadic (concat)
  // Several outputs have the inferred meta, or those after the first infer_more's (a max pool's
  // argmax). The first is the op's value; a traced graph reads output k >= 1 as
  // tuple_get(node, index k) (an optimizer update writing weight and moments).
  int num_outputs = 1;
  InferMoreFn infer_more = nullptr;
  InferFn infer = nullptr;
  GradFn grad = nullptr;  // nullptr: not differentiable (argmax, comparisons, ...)
  ViewFn view = nullptr;
  std::array<KernelFn, kNumDeviceTypes> kernels{};
  std::array<PrepareFn, kNumDeviceTypes> prepare{};  // optional, per backend
};

class OpTable {
 public:
  OpDef& operator[](OpId op) { return defs_[static_cast<size_t>(op)]; }
  const OpDef& operator[](OpId op) const { return defs_[static_cast<size_t>(op)]; }
  void set_prepare(OpId op, DeviceType device, PrepareFn fn) {
    (*this)[op].prepare[static_cast<size_t>(device)] = fn;
  }
  void set_kernel(OpId op, DeviceType device, KernelFn fn) {
    (*this)[op].kernels[static_cast<size_t>(device)] = fn;
  }
  const std::array<OpDef, kNumOps>& defs() const { return defs_; }

 private:
  std::array<OpDef, kNumOps> defs_{};
};

// The process-wide table, built on first use.
const OpTable& op_table();
// Test support: the same table, to stand other kernels in for a device's (tests/devices/ runs
// CUDA ops with the CPU's kernels on host memory).
OpTable& op_table_for_testing();
inline const OpDef& op_def(OpId op) {
  return op_table()[op];
}
// The ops with a CPU kernel but none for `device`: what a model may need there and not find.
std::vector<std::string_view> ops_without_kernel(DeviceType device);

// Definition hooks, one per op family (framework/ops/defs/*.cpp), and the backends' kernel
// registration (framework/backends/*/).
void define_elementwise_ops(OpTable& table);
void define_unary_ops(OpTable& table);
void define_reduction_ops(OpTable& table);
void define_shape_ops(OpTable& table);
void define_index_ops(OpTable& table);
void define_linalg_ops(OpTable& table);
void define_nn_ops(OpTable& table);
void define_recurrent_ops(OpTable& table);
void define_graph_ops(OpTable& table);
void define_random_ops(OpTable& table);
void define_optimizer_ops(OpTable& table);
void define_collective_ops(OpTable& table);
void register_cpu_kernels(OpTable& table);
void register_cuda_kernels(OpTable& table);  // a no-op without CUDA
// The collectives' kernels (framework/backends/collective_kernels.cpp), for every device.
void register_collective_kernels(OpTable& table);

}  // namespace kiln
