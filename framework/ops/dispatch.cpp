#include "kiln/framework/ops/dispatch.h"

#include <sstream>

#include "kiln/framework/autodiff/grad_mode.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/graph/trace_frame.h"
#include "kiln/framework/ops/kernel_launch.h"

namespace kiln {
namespace {

std::string describe_operands(std::span<const TensorMeta> inputs, const Attrs& attrs) {
  std::ostringstream out;
  out << "inputs: ";
  for (size_t i = 0; i < inputs.size(); ++i) out << (i ? ", " : "") << describe(inputs[i]);
  if (inputs.empty()) out << "none";
  if (!attrs.empty()) out << "; " << attrs.to_string();
  return out.str();
}

// Runs an op's inference, prefixing its ShapeErrors with the op's name and operands.
template <typename Fn>
auto inferring(const OpDef& def, std::span<const TensorMeta> inputs, const Attrs& attrs, Fn&& fn) {
  try {
    return fn();
  } catch (const ShapeError& e) {
    throw ShapeError(detail::concat("kiln::ops::", def.name, ": ", e.what(), " (",
                                    describe_operands(inputs, attrs), ")"));
  }
}

}  // namespace

std::string describe(const TensorMeta& meta) {
  std::ostringstream out;
  out << dtype_name(meta.dtype) << meta.shape;
  if (!meta.device.is_cpu()) out << '@' << meta.device;
  return out.str();
}

TensorMeta infer_meta(OpId op, std::span<const TensorMeta> inputs, const Attrs& attrs) {
  const OpDef& def = op_def(op);
  return inferring(def, inputs, attrs, [&] {
    KILN_SHAPE_CHECK(def.num_inputs < 0 || static_cast<int>(inputs.size()) == def.num_inputs,
                     "expected ", def.num_inputs, " inputs, got ", inputs.size());
    for (const TensorMeta& input : inputs)
      KILN_SHAPE_CHECK(input.dtype != DType::string,
                       "string tensors have no ops; the text preprocessing layers "
                       "(TextVectorization, StringLookup, Hashing) turn them into numbers");
    for (size_t i = 1; i < inputs.size(); ++i)
      KILN_SHAPE_CHECK(inputs[i].device == inputs[0].device, "inputs are on different devices (",
                       inputs[0].device, " and ", inputs[i].device, ")");
    return def.infer(inputs, attrs);
  });
}

std::vector<TensorMeta> infer_output_metas(OpId op, std::span<const TensorMeta> inputs,
                                           const Attrs& attrs) {
  const OpDef& def = op_def(op);
  std::vector<TensorMeta> metas{infer_meta(op, inputs, attrs)};
  if (def.infer_more == nullptr) {
    metas.resize(static_cast<size_t>(def.num_outputs), metas[0]);
    return metas;
  }
  std::vector<TensorMeta> more =
      inferring(def, inputs, attrs, [&] { return def.infer_more(inputs, attrs, metas[0]); });
  KILN_CHECK(static_cast<int>(more.size()) + 1 == def.num_outputs, "kiln::ops::", def.name,
             ": infer_more gave ", more.size(), " metas for ", def.num_outputs - 1, " outputs");
  metas.insert(metas.end(), more.begin(), more.end());
  return metas;
}

void run_kernel(OpId op, std::span<const Tensor> inputs, const Tensor& output, const Attrs& attrs,
                std::span<const Tensor> more_outputs) {
  const OpDef& def = op_def(op);
  const KernelFn kernel = def.kernels[static_cast<size_t>(output.device().type)];
  if (kernel == nullptr) {
    throw Error(
        detail::concat("kiln::ops::", def.name, " has no kernel for device ", output.device()));
  }
  if (output.numel() == 0) return;
  launch_kernel(op, kernel, nullptr, KernelContext{inputs, output, attrs, nullptr, more_outputs});
}

Tensor apply(OpId op, std::vector<Tensor> inputs, Attrs attrs) {
  const OpDef& def = op_def(op);
  KILN_CHECK(def.num_outputs == 1, "kiln::ops::", def.name, " has ", def.num_outputs,
             " outputs: call it through apply_multi");
  std::vector<TensorMeta> metas;
  metas.reserve(inputs.size());
  bool symbolic = false;
  bool track = false;
  for (const Tensor& t : inputs) {
    KILN_CHECK(t.defined(), "kiln::ops::", def.name, ": an input tensor is undefined");
    metas.push_back(t.meta());
    symbolic = symbolic || t.is_symbolic();
    track = track || t.requires_grad();
  }
  track = track && def.grad != nullptr && grad_enabled();
  TensorMeta out_meta = infer_meta(op, metas, attrs);

  Tensor out;
  if (symbolic) {
    out = Tensor::symbolic(out_meta);
  } else {
    // A view op may decline (a slice that is not one contiguous block) and fall back to its
    // kernel.
    if (def.view != nullptr) out = def.view(inputs[0], out_meta, attrs);
    if (!out.defined()) {
      out = Tensor::empty(out_meta.shape, out_meta.dtype, out_meta.device);
      run_kernel(op, inputs, out, attrs);
    }
  }
  if (symbolic || track) {
    out.impl()->node = std::make_shared<Node>(
        Node{op, std::move(attrs), std::move(inputs), nullptr, current_trace_frame()});
    out.impl()->requires_grad = track;
  }
  return out;
}

std::vector<Tensor> apply_multi(OpId op, std::vector<Tensor> inputs, Attrs attrs) {
  const OpDef& def = op_def(op);
  KILN_CHECK(def.num_outputs > 1 && def.grad == nullptr, "kiln::ops::", def.name,
             " is not an op with several outputs");
  std::vector<TensorMeta> metas;
  bool symbolic = false;
  for (const Tensor& t : inputs) {
    KILN_CHECK(t.defined(), "kiln::ops::", def.name, ": an input tensor is undefined");
    metas.push_back(t.meta());
    symbolic = symbolic || t.is_symbolic();
  }
  const std::vector<TensorMeta> out_metas = infer_output_metas(op, metas, attrs);
  std::vector<Tensor> out;
  if (symbolic) {
    const uint32_t frame = current_trace_frame();
    out.push_back(Tensor::symbolic(out_metas[0]));
    out[0].impl()->node =
        std::make_shared<Node>(Node{op, std::move(attrs), std::move(inputs), nullptr, frame});
    for (size_t k = 1; k < out_metas.size(); ++k) {
      out.push_back(Tensor::symbolic(out_metas[k]));
      out[k].impl()->node =
          std::make_shared<Node>(Node{OpId::tuple_get,
                                      Attrs{{attr::index, static_cast<int64_t>(k)}},
                                      {out[0]},
                                      nullptr,
                                      frame});
    }
    return out;
  }
  for (const TensorMeta& meta : out_metas)
    out.push_back(Tensor::empty(meta.shape, meta.dtype, meta.device));
  run_kernel(op, inputs, out[0], attrs, std::span(out).subspan(1));
  return out;
}

}  // namespace kiln
