#pragma once
// Registration hooks of the CUDA kernel families (one file each).
#include "kiln/framework/ops/op_def.h"

namespace kiln::cuda {
void register_unary_kernels(OpTable& table);
void register_binary_kernels(OpTable& table);
void register_reduction_kernels(OpTable& table);
void register_matmul_kernels(OpTable& table);
void register_random_kernels(OpTable& table);
void register_optimizer_kernels(OpTable& table);
void register_shape_kernels(OpTable& table);
void register_index_kernels(OpTable& table);
void register_scatter_add_kernel(OpTable& table);
void register_rnn_kernels(OpTable& table);
void register_conv_kernels(OpTable& table);
void register_pool_kernels(OpTable& table);
void register_fused_kernels(OpTable& table);
}  // namespace kiln::cuda
