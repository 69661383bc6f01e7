// The CUDA libraries' versions (library_versions.h): each asked of the loaded library itself,
// none needing a GPU, against the version macros of the headers kiln was compiled with.
#include "kiln/framework/backends/library_versions.h"

#include <cublas_api.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>
#include <nvrtc.h>

namespace kiln::detail {
namespace {

// CUDA's encoding: 1000 * major + 10 * minor.
LibraryVersion from_cuda(int v) {
  return {v / 1000, v % 1000 / 10, 0};
}

// cuDNN's and NCCL's (from 2.9): 10000 * major + 100 * minor + patch.
LibraryVersion from_decimal(int64_t v) {
  return {static_cast<int>(v / 10000), static_cast<int>(v / 100 % 100), static_cast<int>(v % 100)};
}

}  // namespace

std::vector<LoadedLibrary> cuda_library_versions() {
  std::vector<LoadedLibrary> out;
  int driver = 0;
  // 0, and no error worth reporting, on a machine without a driver.
  const bool has_driver = cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0;
  out.push_back(
      {"CUDA driver", std::nullopt, has_driver ? std::optional(from_cuda(driver)) : std::nullopt});
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  out.push_back({"CUDA runtime", from_cuda(CUDART_VERSION), from_cuda(runtime)});
  int major = 0, minor = 0, patch = 0;
  (void)cublasGetProperty(MAJOR_VERSION, &major);
  (void)cublasGetProperty(MINOR_VERSION, &minor);
  (void)cublasGetProperty(PATCH_LEVEL, &patch);
  out.push_back({"cuBLAS", LibraryVersion{CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH},
                 LibraryVersion{major, minor, patch}});
  out.push_back({"cuDNN", from_decimal(CUDNN_VERSION),
                 from_decimal(static_cast<int64_t>(cudnnGetVersion()))});
  (void)nvrtcVersion(&major, &minor);
  out.push_back({"NVRTC", from_cuda(CUDA_VERSION), LibraryVersion{major, minor, 0}});
  int nccl = 0;
  (void)ncclGetVersion(&nccl);
  out.push_back({"NCCL", from_decimal(NCCL_VERSION_CODE), from_decimal(nccl)});
  return out;
}

}  // namespace kiln::detail
