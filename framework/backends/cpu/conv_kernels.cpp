#include "framework/backends/cpu/cpu_kernels.h"
namespace kiln::cpu {
void register_conv_kernels(OpTable&) {}
}  // namespace kiln::cpu
