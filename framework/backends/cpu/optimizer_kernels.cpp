// Optimizer update kernels: one loop per variable over the variable, its slots and its gradient,
// writing the new values (in place when the executor binds them to the inputs' data: each
// element is read before it is written). The element's update is shared with the CUDA kernel
// (adam_step.h); compiled without FMA contraction, the values equal those of the same update as
// separate elementwise ops, at every instruction set level.
#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/isa_dispatch.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/adam_step.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln::cpu {
namespace {

// Further output k's data; one the graph leaves unused (undefined) is written to `unused`,
// allocated for the call. Updates bound by the executor never allocate here.
template <typename T>
T* further_output(const KernelContext& c, size_t k, Tensor& unused) {
  const Tensor& t = c.more_outputs[k];
  if (t.defined()) return t.data<T>();
  unused = Tensor::empty(c.output.shape(), c.output.dtype(), c.output.device());
  return unused.data<T>();
}

template <typename T>
void adam_update(const KernelContext& c) {
  KILN_CHECK(c.more_outputs.size() == 2, "kiln::ops::adam_update: 3 outputs expected, ",
             c.more_outputs.size() + 1, " bound");
  const T* w = c.inputs[0].data<T>();
  const T* m = c.inputs[1].data<T>();
  const T* v = c.inputs[2].data<T>();
  const T* g = c.inputs[3].data<T>();
  const AdamStep<T> step{static_cast<T>(1 - c.attrs.get(attr::beta_1)),
                         static_cast<T>(1 - c.attrs.get(attr::beta_2)),
                         static_cast<T>(c.attrs.get(attr::epsilon)), c.inputs[4].data<T>()[0]};
  Tensor unused_m, unused_v;
  T* w_out = c.output.data<T>();
  T* m_out = further_output<T>(c, 0, unused_m);
  T* v_out = further_output<T>(c, 1, unused_v);
  const CpuIsa isa = cpu_isa();
  parallel_for(c.output.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
    run_at_isa(isa, [&] {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i)
        step(w[i], m[i], v[i], g[i], w_out[i], m_out[i], v_out[i]);
    });
  });
}

constexpr uint32_t kUpdateDTypes = dtype_bit(DType::f32) | dtype_bit(DType::f64);

void adam_update_kernel(const KernelContext& c) {
  visit_dtypes<kUpdateDTypes>(c.output.dtype(), "kiln::ops::adam_update on the CPU",
                              [&]<typename T>() { adam_update<T>(c); });
}

}  // namespace

void register_optimizer_kernels(OpTable& t) {
  t.set_kernel(OpId::adam_update, DeviceType::cpu, adam_update_kernel);
}

}  // namespace kiln::cpu
