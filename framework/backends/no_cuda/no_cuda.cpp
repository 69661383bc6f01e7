// Built when KILN_WITH_CUDA is off: no CUDA backend and no CUDA kernels.
#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/library_versions.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/nccl.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {
Backend* built_in_cuda_backend() {
  return nullptr;
}
void register_cuda_kernels(OpTable&) {}
std::vector<LoadedLibrary> detail::cuda_library_versions() {
  return {};
}

std::shared_ptr<distributed::Communicator> distributed::nccl_world(
    std::shared_ptr<distributed::Communicator>, int) {
  throw Error("NCCL needs a build with CUDA (KILN_WITH_CUDA)");
}
std::vector<std::shared_ptr<distributed::Communicator>> distributed::nccl_group(
    const std::vector<std::shared_ptr<distributed::Communicator>>&, const std::vector<int>&) {
  throw Error("NCCL needs a build with CUDA (KILN_WITH_CUDA)");
}
}  // namespace kiln
