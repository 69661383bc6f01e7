#pragma once
// Device memory of one GPU, cached by size class. cudaMalloc and cudaFree are slow and
// synchronize the device, so freed blocks go to a free list of their class and the next
// allocation of that class takes one back. Work on the device's one compute stream needs no
// event for that: work queued after a reuse runs after the work that used the block before.
// Work on another stream (NCCL's collectives) is recorded with record_stream: a block freed while
// such work may still use it waits on a pending list until that work has completed, and only
// then goes to its free list (checked by the next allocation).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/deferred_frees.h"

namespace kiln::cuda {

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(int device) : device_(device) {}
  ~CachingAllocator() override;  // frees every block, cached, pending or still handed out
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(size_t bytes) override;
  void deallocate(void* ptr, size_t bytes) override;

  // The work queued so far on `stream`, a stream other than the device's compute stream, uses
  // `block` (a pointer allocate returned, still in use): once freed, the block is reused only
  // after that work has completed.
  void record_stream(void* block, cudaStream_t stream);

  // Gives the cached (free) blocks back to the driver, with the pending ones whose work has
  // completed.
  void release_cached();

  struct Stats {
    size_t reserved = 0;  // bytes held from the driver, in use, pending or cached
    size_t cached = 0;    // bytes of those in free lists
  };
  Stats stats() const;

  // The bytes a request of `bytes` occupies: blocks of one class are interchangeable.
  static size_t size_class(size_t bytes);

 private:
  // An event recorded on a stream, destroyed with this handle.
  class StreamEvent {
   public:
    explicit StreamEvent(cudaEvent_t event) : event_(event) {}
    StreamEvent(StreamEvent&& other) noexcept;
    StreamEvent& operator=(StreamEvent&& other) noexcept;
    ~StreamEvent();
    bool done() const;  // the work queued before it has completed

   private:
    cudaEvent_t event_;
  };

  // Moves the pending blocks whose work on other streams has completed to their free lists.
  void reclaim_pending_locked();
  void release_cached_locked();

  int device_;
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // by size class
  std::unordered_set<void*> in_use_;
  DeferredFrees<StreamEvent> pending_;
  Stats stats_;
};

}  // namespace kiln::cuda
