#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/parallel.h"

namespace kiln {

void register_cpu_kernels(OpTable& table) {
  cpu::configure_threads();
  cpu::register_elementwise_kernels(table);
  cpu::register_reduction_kernels(table);
  cpu::register_shape_kernels(table);
  cpu::register_index_kernels(table);
  cpu::register_matmul_kernels(table);
  cpu::register_conv_kernels(table);
  cpu::register_pool_kernels(table);
  cpu::register_fused_kernels(table);
  cpu::register_random_kernels(table);
  cpu::register_rnn_kernels(table);
  cpu::register_optimizer_kernels(table);
}

}  // namespace kiln
