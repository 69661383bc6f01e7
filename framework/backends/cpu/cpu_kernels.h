#pragma once
// Registration hooks of the CPU kernel families (one file each).
#include "kiln/framework/ops/op_def.h"

namespace kiln::cpu {
void register_elementwise_kernels(OpTable& table);
void register_reduction_kernels(OpTable& table);
void register_shape_kernels(OpTable& table);
void register_index_kernels(OpTable& table);
void register_matmul_kernels(OpTable& table);
void register_conv_kernels(OpTable& table);
void register_pool_kernels(OpTable& table);
void register_fused_kernels(OpTable& table);
void register_random_kernels(OpTable& table);
void register_rnn_kernels(OpTable& table);
void register_optimizer_kernels(OpTable& table);
}  // namespace kiln::cpu
