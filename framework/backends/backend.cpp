#include "kiln/framework/backends/backend.h"

#include "kiln/framework/core/error.h"

namespace kiln {

Backend& cpu_backend();
Backend* built_in_cuda_backend();  // nullptr when kiln was built without CUDA

namespace {

Backend* replacement_cuda_backend = nullptr;

Backend* cuda_backend() {
  return replacement_cuda_backend != nullptr ? replacement_cuda_backend : built_in_cuda_backend();
}

}  // namespace

Backend& backend_for(const Device& device) {
  if (device.is_cpu()) return cpu_backend();
  Backend* cuda = cuda_backend();
  KILN_CHECK(cuda != nullptr, "device ", device,
             " requested, but kiln was built without CUDA (configure with -DKILN_WITH_CUDA=ON)");
  const int count = cuda->device_count();
  KILN_CHECK(device.index < count, "device ", device, " requested, but ", count,
             " CUDA device(s) are visible");
  return *cuda;
}

void replace_cuda_backend(Backend* backend) {
  replacement_cuda_backend = backend;
}

bool cuda_available() {
  Backend* cuda = cuda_backend();
  return cuda != nullptr && cuda->device_count() > 0;
}

}  // namespace kiln
