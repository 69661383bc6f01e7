#pragma once
// What CUDA kernels need from the backend: the device's stream and cuBLAS handle, the current
// device, and checks that turn CUDA status codes into kiln::Error. Each device has one stream
// today and every kernel, copy and cuBLAS call on the device is queued on it; stream pools for
// overlap and NCCL collectives will come in behind current_stream() without changing callers.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

// KILN_CUDA_CHECK(cudaMalloc(...)) throws kiln::Error naming the call, file:line and CUDA's
// description of the failure.
#define KILN_CUDA_CHECK(call)                                                       \
  do {                                                                              \
    const cudaError_t kiln_cuda_status_ = (call);                                   \
    if (kiln_cuda_status_ != cudaSuccess)                                           \
      ::kiln::cuda::throw_cuda_error(kiln_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define KILN_CUBLAS_CHECK(call)                                                         \
  do {                                                                                  \
    const cublasStatus_t kiln_cublas_status_ = (call);                                  \
    if (kiln_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                   \
      ::kiln::cuda::throw_cublas_error(kiln_cublas_status_, #call, __FILE__, __LINE__); \
  } while (0)

// GPUs visible to the process; 0 (never an error) when there is no driver or no device.
int device_count();

// The stream work on `device` is queued on, created on first use.
cudaStream_t current_stream(int device);
// The device's cuBLAS handle, bound to its current stream.
cublasHandle_t cublas_handle(int device);

// Makes `device` the calling thread's current CUDA device for the guard's lifetime: kernel
// launches and allocations go to the current device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  int device_ = 0;
};

}  // namespace kiln::cuda
