// matmul on cuBLAS for the floating dtypes, with the CPU kernel's contract: optional transposes
// and either operand with batch 1 (broadcast) or the output's batch; matmul_bias_activation adds
// its bias and relu after.
#include <limits>

#include "kiln/framework/backends/cuda/conv_support.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/gemm_types.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

int as_int(int64_t v, const char* what) {
  KILN_CHECK(v <= std::numeric_limits<int>::max(), "kiln::ops::matmul on CUDA: ", what, " ", v,
             " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

void matmul_kernel(const KernelContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& out = c.output;
  const bool ta = c.attrs.get(attr::transpose_a);
  const bool tb = c.attrs.get(attr::transpose_b);
  const int64_t m = out.dim(-2), n = out.dim(-1);
  const int64_t k = ta ? a.dim(-2) : a.dim(-1);
  const int device = out.device().index;
  const DeviceGuard guard(device);
  if (k == 0) {  // an empty sum: cuBLAS would leave the output untouched
    KILN_CUDA_CHECK(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), current_stream(device)));
    return;
  }
  const int64_t batch = out.numel() / (m * n);
  const int64_t a_stride = a.numel() == m * k ? 0 : m * k;
  const int64_t b_stride = b.numel() == k * n ? 0 : k * n;
  const GemmTypes types = gemm_types(out.dtype(), "matmul");
  const GemmScalars scalars(1, 0);
  // cuBLAS is column-major, and a row-major matrix read column-major is its transpose: so
  // compute C^T = op(B)^T op(A)^T, where op(B)^T is B's buffer as stored when tb is false.
  KILN_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      cublas_handle(device), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
      as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), scalars.alpha(types), b.raw_data(),
      types.data, as_int(tb ? k : n, "ldb"), b_stride, a.raw_data(), types.data,
      as_int(ta ? m : k, "lda"), a_stride, scalars.beta(types), out.raw_data(), types.data,
      as_int(n, "ldc"), m * n, as_int(batch, "batch"), types.compute, CUBLAS_GEMM_DEFAULT));
}

// matmul_bias_activation: the product, then its bias and relu in one pass over the output (as
// conv2d_bias_activation adds its bias after cuDNN's convolution).
void matmul_bias_activation_kernel(const KernelContext& c) {
  matmul_kernel(c);
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  add_channel_bias(c.output.raw_data(), c.inputs[2].raw_data(), c.output.numel(), c.output.dim(-1),
                   c.output.dtype(), c.attrs.get(attr::relu), current_stream(device));
}

}  // namespace

void register_matmul_kernels(OpTable& t) {
  t.set_kernel(OpId::matmul, DeviceType::cuda, matmul_kernel);
  t.set_kernel(OpId::matmul_bias_activation, DeviceType::cuda, matmul_bias_activation_kernel);
}

}  // namespace kiln::cuda
