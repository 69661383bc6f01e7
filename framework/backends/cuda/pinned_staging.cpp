#include "kiln/framework/backends/cuda/pinned_staging.h"

#include <cstring>

#include "kiln/framework/backends/cuda/cuda_context.h"

namespace kiln::cuda {

PinnedStaging::Buffer& PinnedStaging::free_buffer(size_t bytes) {
  for (Buffer& b : buffers_) {
    if (b.bytes < bytes) continue;
    const cudaError_t state = cudaEventQuery(b.copied);
    if (state == cudaSuccess) return b;
    if (state != cudaErrorNotReady) KILN_CUDA_CHECK(state);
  }
  Buffer* b = nullptr;
  if (buffers_.size() < kMaxBuffers) {
    b = &buffers_.emplace_back();
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&b->copied, cudaEventDisableTiming));
  } else {
    b = &buffers_[next_++ % buffers_.size()];
    KILN_CUDA_CHECK(cudaEventSynchronize(b->copied));
  }
  if (b->bytes < bytes) {
    if (b->data != nullptr) KILN_CUDA_CHECK(cudaFreeHost(b->data));
    b->data = nullptr;
    KILN_CUDA_CHECK(cudaHostAlloc(&b->data, bytes, cudaHostAllocDefault));
    b->bytes = bytes;
  }
  return *b;
}

void PinnedStaging::copy_to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::lock_guard lock(mutex_);
  Buffer& b = free_buffer(bytes);
  std::memcpy(b.data, src, bytes);
  KILN_CUDA_CHECK(cudaMemcpyAsync(dst, b.data, bytes, cudaMemcpyHostToDevice, stream));
  KILN_CUDA_CHECK(cudaEventRecord(b.copied, stream));
}

}  // namespace kiln::cuda
