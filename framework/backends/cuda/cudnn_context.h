#pragma once
// The device's cuDNN handle and a check that turns cuDNN status codes into kiln::Error. The
// handle is bound to the device's current stream, so cuDNN's work is ordered with kiln's kernels
// and copies like every other call on the device (cuda_context.h).
#include <cudnn.h>

namespace kiln::cuda {

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file,
                                    int line);

// KILN_CUDNN_CHECK(cudnnConvolutionForward(...)) throws kiln::Error naming the call, file:line
// and cuDNN's description of the failure.
#define KILN_CUDNN_CHECK(call)                                                        \
  do {                                                                                \
    const cudnnStatus_t kiln_cudnn_status_ = (call);                                  \
    if (kiln_cudnn_status_ != CUDNN_STATUS_SUCCESS)                                   \
      ::kiln::cuda::throw_cudnn_error(kiln_cudnn_status_, #call, __FILE__, __LINE__); \
  } while (0)

// The device's cuDNN handle, created on first use (loading cuDNN takes a while) and bound to
// current_stream(device).
cudnnHandle_t cudnn_handle(int device);

}  // namespace kiln::cuda
