// adam_update on CUDA: one thread per element runs the update the CPU kernel runs (adam_step.h),
// compiled without FMA contraction (CMakeLists.txt) so the values match the CPU's bit for bit.
// alpha is read on the device, where the optimizer's step computed it.
#include <algorithm>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/adam_step.h"

namespace kiln::cuda {
namespace {

template <typename T>
struct AdamData {
  const T* w;
  const T* m;
  const T* v;
  const T* g;
  const T* alpha;
  T* w_out;
  T* m_out;
  T* v_out;
};

template <typename T>
__global__ void adam_kernel(AdamData<T> d, AdamStep<T> step, int64_t n) {
  step.alpha = d.alpha[0];
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    step(d.w[i], d.m[i], d.v[i], d.g[i], d.w_out[i], d.m_out[i], d.v_out[i]);
}

// Further output k, or a scratch tensor on the device where the graph leaves it unused.
Tensor further_output(const KernelContext& c, size_t k) {
  const Tensor& t = c.more_outputs[k];
  return t.defined() ? t : Tensor::empty(c.output.shape(), c.output.dtype(), c.output.device());
}

void adam_update_kernel(const KernelContext& c) {
  KILN_CHECK(c.more_outputs.size() == 2, "kiln::ops::adam_update: 3 outputs expected, ",
             c.more_outputs.size() + 1, " bound");
  const int64_t n = c.output.numel();
  if (n == 0) return;
  const Tensor m_out = further_output(c, 0);
  const Tensor v_out = further_output(c, 1);
  const auto blocks = grid_for(n);
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  constexpr unsigned kUpdateDTypes = dtype_bit(DType::f32) | dtype_bit(DType::f64);
  visit_dtypes<kUpdateDTypes>(
      c.output.dtype(), "kiln::ops::adam_update on CUDA", [&]<typename T>() {
        const AdamData<T> d{data_of<T>(c.inputs[0]),           data_of<T>(c.inputs[1]),
                            data_of<T>(c.inputs[2]),           data_of<T>(c.inputs[3]),
                            data_of<T>(c.inputs[4]),           static_cast<T*>(c.output.raw_data()),
                            static_cast<T*>(m_out.raw_data()), static_cast<T*>(v_out.raw_data())};
        const AdamStep<T> step{static_cast<T>(1 - c.attrs.get(attr::beta_1)),
                               static_cast<T>(1 - c.attrs.get(attr::beta_2)),
                               static_cast<T>(c.attrs.get(attr::epsilon)), T(0)};
        adam_kernel<<<blocks, kThreads, 0, current_stream(device)>>>(d, step, n);
      });
  KILN_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_optimizer_kernels(OpTable& t) {
  t.set_kernel(OpId::adam_update, DeviceType::cuda, adam_update_kernel);
}

}  // namespace kiln::cuda
