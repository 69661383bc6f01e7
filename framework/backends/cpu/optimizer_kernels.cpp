// Optimizer update kernels: one loop per variable over the variable, its slots and its gradient,
// writing the new values (in place when the executor binds them to the inputs' data: each
// element is read before it is written). Compiled without FMA contraction, so the values equal
// those of the same update as separate elementwise ops, at every instruction set level.
#include <cmath>
#include <vector>

#include "framework/backends/cpu/cpu_kernels.h"
#include "framework/backends/cpu/isa_dispatch.h"
#include "framework/backends/cpu/parallel.h"
#include "framework/core/error.h"
#include "framework/ops/op_def.h"

namespace kiln::cpu {
namespace {

// The further outputs a graph may leave unused (undefined) still need somewhere to go.
std::vector<Tensor> outputs_of(const KernelContext& c, size_t count) {
  KILN_CHECK(c.more_outputs.size() + 1 == count, "optimizer update: ", count, " outputs expected, ",
             c.more_outputs.size() + 1, " bound");
  std::vector<Tensor> out{c.output};
  for (const Tensor& t : c.more_outputs)
    out.push_back(t.defined() ? t : Tensor::empty(c.output.shape(), c.output.dtype()));
  return out;
}

template <typename T>
void adam_update(const KernelContext& c) {
  const std::vector<Tensor> out = outputs_of(c, 3);
  const T* w = c.inputs[0].data<T>();
  const T* m = c.inputs[1].data<T>();
  const T* v = c.inputs[2].data<T>();
  const T* g = c.inputs[3].data<T>();
  const T alpha = c.inputs[4].data<T>()[0];
  // The constants as the separate ops see them: double attrs rounded to T.
  const auto one_minus_beta_1 = static_cast<T>(1 - c.attrs.get_float("beta_1"));
  const auto one_minus_beta_2 = static_cast<T>(1 - c.attrs.get_float("beta_2"));
  const auto epsilon = static_cast<T>(c.attrs.get_float("epsilon"));
  T* w_out = out[0].data<T>();
  T* m_out = out[1].data<T>();
  T* v_out = out[2].data<T>();
  const CpuIsa isa = cpu_isa();
  parallel_for(c.output.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
    run_at_isa(isa, [&] {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        const T gi = g[i];
        const T m_new = m[i] + (gi - m[i]) * one_minus_beta_1;
        const T v_new = v[i] + (gi * gi - v[i]) * one_minus_beta_2;
        const T w_new = w[i] - m_new * alpha / (std::sqrt(v_new) + epsilon);
        m_out[i] = m_new;
        v_out[i] = v_new;
        w_out[i] = w_new;
      }
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
