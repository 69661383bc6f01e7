#include "kiln/framework/backends/cuda/cuda_kernels.h"

namespace kiln {

// Registration touches no CUDA API, so it is safe on machines without a GPU: the kernels only
// run for tensors on a CUDA device, and those cannot be created there.
void register_cuda_kernels(OpTable& table) {
  cuda::register_unary_kernels(table);
  cuda::register_binary_kernels(table);
  cuda::register_reduction_kernels(table);
  cuda::register_matmul_kernels(table);
  cuda::register_random_kernels(table);
  cuda::register_optimizer_kernels(table);
  cuda::register_shape_kernels(table);
  cuda::register_index_kernels(table);
  cuda::register_scatter_add_kernel(table);
  cuda::register_rnn_kernels(table);
  cuda::register_conv_kernels(table);
  cuda::register_pool_kernels(table);
  cuda::register_fused_kernels(table);
}

}  // namespace kiln
