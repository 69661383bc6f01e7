#include "kiln/framework/backends/cuda/cuda_context.h"

#include <memory>
#include <mutex>
#include <vector>

#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

struct DeviceContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;  // created on first use: loading cuBLAS takes a while
};

// Streams and handles are never destroyed: the CUDA runtime may already be unloaded when static
// destructors run, and the driver reclaims them at exit anyway.
class Contexts {
 public:
  cudaStream_t stream(int device) { return get(device).stream; }

  cublasHandle_t cublas(int device) {
    DeviceContext& c = get(device);
    const std::lock_guard lock(mutex_);
    if (c.cublas == nullptr) {
      const DeviceGuard guard(device);
      KILN_CUBLAS_CHECK(cublasCreate(&c.cublas));
      KILN_CUBLAS_CHECK(cublasSetStream(c.cublas, c.stream));
    }
    return c.cublas;
  }

 private:
  DeviceContext& get(int device) {
    const std::lock_guard lock(mutex_);
    KILN_CHECK(device >= 0 && device < device_count(), "cuda:", device, " requested, but ",
               device_count(), " CUDA device(s) are visible");
    if (contexts_.empty()) contexts_.resize(static_cast<size_t>(device_count()));
    std::unique_ptr<DeviceContext>& slot = contexts_[static_cast<size_t>(device)];
    if (slot == nullptr) {
      auto c = std::make_unique<DeviceContext>();
      const DeviceGuard guard(device);
      // Non-blocking: kiln's work must not serialize with other libraries' default-stream work.
      KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
      slot = std::move(c);
    }
    return *slot;
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<DeviceContext>> contexts_;
};

Contexts& contexts() {
  static Contexts instance;
  return instance;
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(detail::concat(file, ":", line, ": ", call, " failed: ", cudaGetErrorString(status),
                             " (", cudaGetErrorName(status), ")"));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw Error(
      detail::concat(file, ":", line, ": ", call, " failed: ", cublasGetStatusString(status)));
}

int device_count() {
  // Counted once: the visible devices are fixed for the life of the process.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      // No driver, an old driver or no GPU: CUDA is unavailable, which is not an error.
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

cudaStream_t current_stream(int device) {
  return contexts().stream(device);
}

cublasHandle_t cublas_handle(int device) {
  return contexts().cublas(device);
}

DeviceGuard::DeviceGuard(int device) {
  KILN_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) KILN_CUDA_CHECK(cudaSetDevice(device));
  device_ = device;
}

DeviceGuard::~DeviceGuard() {
  // Restoring cannot reasonably fail and a destructor must not throw.
  if (previous_ != device_) (void)cudaSetDevice(previous_);
}

}  // namespace kiln::cuda
