#include "kiln/framework/backends/cpu/widened_bf16.h"

#include <vector>

#include "kiln/framework/backends/cpu/convert_tensor.h"

namespace kiln::cpu {
namespace {

Tensor widened(const Tensor& t) {
  if (!t.defined() || t.dtype() != DType::bf16) return t;
  Tensor w = Tensor::empty(t.shape(), DType::f32, Device::cpu());
  convert_tensor(t, w);
  return w;
}

// A float32 buffer for a bfloat16 output, else the output itself.
Tensor wide_output(const Tensor& t) {
  if (!t.defined() || t.dtype() != DType::bf16) return t;
  return Tensor::empty(t.shape(), DType::f32, Device::cpu());
}

void round_into(const Tensor& wide, const Tensor& out) {
  if (out.defined() && out.dtype() == DType::bf16) convert_tensor(wide, out);
}

}  // namespace

void run_widened_bf16(const KernelContext& c, KernelFn kernel) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(widened(t));
  const Tensor output = wide_output(c.output);
  std::vector<Tensor> more_outputs;
  for (const Tensor& t : c.more_outputs) more_outputs.push_back(wide_output(t));
  kernel(KernelContext{inputs, output, c.attrs, c.payload, more_outputs});
  round_into(output, c.output);
  for (size_t k = 0; k < more_outputs.size(); ++k) round_into(more_outputs[k], c.more_outputs[k]);
}

}  // namespace kiln::cpu
