#pragma once
// Device memory of one GPU, cached by size class. cudaMalloc and cudaFree are slow and
// synchronize the device, so freed blocks go to a free list of their class and the next
// allocation of that class takes one back. Reuse needs no event: every user of the device's
// memory runs on its one stream, so work queued after a reuse runs after the work that used the
// block before. (Blocks handed to other streams, e.g. NCCL's, will need recorded events.)
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kiln/framework/backends/backend.h"

namespace kiln::cuda {

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(int device) : device_(device) {}
  ~CachingAllocator() override;  // frees every block, cached or still handed out
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(size_t bytes) override;
  void deallocate(void* ptr, size_t bytes) override;

  // Gives the cached (free) blocks back to the driver.
  void release_cached();

  struct Stats {
    size_t reserved = 0;  // bytes held from the driver, in use or cached
    size_t cached = 0;    // bytes of those in free lists
  };
  Stats stats() const;

  // The bytes a request of `bytes` occupies: blocks of one class are interchangeable.
  static size_t size_class(size_t bytes);

 private:
  void release_cached_locked();

  int device_;
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // by size class
  std::unordered_set<void*> in_use_;
  Stats stats_;
};

}  // namespace kiln::cuda
