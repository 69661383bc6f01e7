// Built when KILN_WITH_CUDA is off: no CUDA backend and no CUDA kernels.
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
Backend* built_in_cuda_backend() {
  return nullptr;
}
void register_cuda_kernels(OpTable&) {}
}  // namespace kiln
