// The CUDA backend: a caching allocator per GPU and copies ordered on the device's stream; only
// a copy to the host waits for it.
#include <memory>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/cuda/caching_allocator.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/pinned_staging.h"
#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    for (int d = 0; d < cuda::device_count(); ++d) {
      allocators_.push_back(std::make_unique<cuda::CachingAllocator>(d));
      staging_.push_back(std::make_unique<cuda::PinnedStaging>());
    }
  }

  DeviceType type() const override { return DeviceType::cuda; }
  int device_count() const override { return cuda::device_count(); }

  Allocator& allocator(int index) override {
    check_index(index);
    return *allocators_[static_cast<size_t>(index)];
  }

  // Queued behind the device's work without waiting for it (through pinned staging).
  void copy_from_host(void* dst, const void* src, size_t bytes, int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    staging_[static_cast<size_t>(index)]->copy_to_device(dst, src, bytes,
                                                         cuda::current_stream(index));
  }
  // Waits for the stream: the host reads the result when this returns.
  void copy_to_host(void* dst, const void* src, size_t bytes, int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    const cudaStream_t stream = cuda::current_stream(index);
    KILN_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    KILN_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  // Ordered on the stream with the kernels before and after it: no wait, as no host buffer is
  // involved.
  void copy_on_device(void* dst, const void* src, size_t bytes, int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    KILN_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cuda::current_stream(index)));
  }

  // Also reports a launch that failed (a bad grid, too many resources), which the stream
  // itself never sees.
  void synchronize(int index) override {
    check_index(index);
    const cuda::DeviceGuard guard(index);
    KILN_CUDA_CHECK(cudaStreamSynchronize(cuda::current_stream(index)));
    KILN_CUDA_CHECK(cudaGetLastError());
  }

 private:
  void check_index(int index) const {
    KILN_CHECK(index >= 0 && index < device_count(), "cuda:", index, " requested, but ",
               device_count(), " CUDA device(s) are visible");
  }

  std::vector<std::unique_ptr<cuda::CachingAllocator>> allocators_;
  std::vector<std::unique_ptr<cuda::PinnedStaging>> staging_;
};

}  // namespace

Backend* built_in_cuda_backend() {
  static CudaBackend backend;
  return &backend;
}

}  // namespace kiln
