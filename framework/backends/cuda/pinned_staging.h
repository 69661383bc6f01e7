#pragma once
// Page-locked host buffers that copies to a device go through, so a copy from host memory is
// queued on the device's stream and returns at once: the host moves on to the next batch while
// the device finishes the step before it, and no step waits for its batch's copy. A buffer is
// reused only after the copies queued from it have run (an event per buffer).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace kiln::cuda {

class PinnedStaging {
 public:
  PinnedStaging() = default;
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;
  // Buffers and events live as long as the process (the runtime may be gone at static
  // destruction), as the streams do.
  ~PinnedStaging() = default;

  // Copies `bytes` from `src` to device memory `dst` on `stream` (of the current device) through
  // a staging buffer; `src` may be reused when this returns.
  void copy_to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream);

 private:
  struct Buffer {
    void* data = nullptr;
    size_t bytes = 0;
    cudaEvent_t copied = nullptr;  // recorded after the last copy from the buffer
  };
  // A buffer of at least `bytes` whose copies have run: a free one, a new one, or when
  // kMaxBuffers exist the next in turn after waiting for its copies (grown if small), so a
  // host far ahead of the device holds bounded pinned memory.
  Buffer& free_buffer(size_t bytes);

  static constexpr size_t kMaxBuffers = 8;
  std::mutex mutex_;
  std::vector<Buffer> buffers_;
  size_t next_ = 0;  // the buffer to wait for when all are in use (round robin)
};

}  // namespace kiln::cuda
