// The CUDA backend: a caching allocator per GPU and copies ordered on the device's stream.
#include <memory>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/cuda/caching_allocator.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    for (int d = 0; d < cuda::device_count(); ++d)
      allocators_.push_back(std::make_unique<cuda::CachingAllocator>(d));
  }

  DeviceType type() const override { return DeviceType::cuda; }
  int device_count() const override { return cuda::device_count(); }

  Allocator& allocator(int index) override {
    check_index(index);
    return *allocators_[static_cast<size_t>(index)];
  }

  void copy_from_host(void* dst, const void* src, size_t bytes, int index) override {
    copy(dst, src, bytes, cudaMemcpyHostToDevice, index);
  }
  void copy_to_host(void* dst, const void* src, size_t bytes, int index) override {
    copy(dst, src, bytes, cudaMemcpyDeviceToHost, index);
  }
  // Ordered on the stream with the kernels before and after it: no wait, as no host buffer is
  // involved.
  void copy_on_device(void* dst, const void* src, size_t bytes, int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    KILN_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cuda::current_stream(index)));
  }

  void synchronize(int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    KILN_CUDA_CHECK(cudaStreamSynchronize(cuda::current_stream(index)));
  }

 private:
  void check_index(int index) const {
    KILN_CHECK(index >= 0 && index < device_count(), "cuda:", index, " requested, but ",
               device_count(), " CUDA device(s) are visible");
  }

  // Between host and device, on the device's stream, so a copy sees the results of kernels
  // queued before it; waiting for the stream makes the copy complete (and host buffers
  // reusable) on return.
  void copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int index) {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    const cudaStream_t stream = cuda::current_stream(index);
    KILN_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    KILN_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::vector<std::unique_ptr<cuda::CachingAllocator>> allocators_;
};

}  // namespace

Backend* built_in_cuda_backend() {
  static CudaBackend backend;
  return &backend;
}

}  // namespace kiln
