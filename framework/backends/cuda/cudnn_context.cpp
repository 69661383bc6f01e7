#include "kiln/framework/backends/cuda/cudnn_context.h"

#include <mutex>
#include <string>
#include <vector>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

// One handle per device, never destroyed: like the streams they are bound to, they would outlive
// the CUDA runtime in static destructors (cuda_context.cpp).
struct Handles {
  std::mutex mutex;
  std::vector<cudnnHandle_t> by_device;
};

Handles& handles() {
  static Handles instance;
  return instance;
}

}  // namespace

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  // cuDNN 9 also keeps an account of its last failure, often naming the operand it refused.
  char last[512] = {};
  cudnnGetLastErrorString(last, sizeof(last));
  const std::string account = last[0] == '\0' ? "" : detail::concat(" (", last, ")");
  throw Error(detail::concat(file, ":", line, ": ", call, " failed: ", cudnnGetErrorString(status),
                             account));
}

cudnnHandle_t cudnn_handle(int device) {
  const cudaStream_t stream = current_stream(device);  // also checks that the device exists
  Handles& h = handles();
  const std::lock_guard lock(h.mutex);
  if (h.by_device.empty()) h.by_device.resize(static_cast<size_t>(device_count()), nullptr);
  cudnnHandle_t& slot = h.by_device[static_cast<size_t>(device)];
  if (slot == nullptr) {
    const DeviceGuard guard(device);
    cudnnHandle_t handle = nullptr;
    KILN_CUDNN_CHECK(cudnnCreate(&handle));
    KILN_CUDNN_CHECK(cudnnSetStream(handle, stream));
    slot = handle;
  }
  return slot;
}

}  // namespace kiln::cuda
