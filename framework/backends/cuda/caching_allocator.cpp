#include "kiln/framework/backends/cuda/caching_allocator.h"

#include <algorithm>
#include <utility>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/core/error.h"

namespace kiln::cuda {
namespace {

constexpr size_t kSmallStep = 512;
constexpr size_t kLargeThreshold = size_t{1} << 20;
// The driver backs large allocations with 2 MiB pages, so finer classes would save nothing.
constexpr size_t kLargeStep = size_t{2} << 20;

size_t round_up(size_t n, size_t step) {
  return (n + step - 1) / step * step;
}

}  // namespace

size_t CachingAllocator::size_class(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  return round_up(bytes, bytes < kLargeThreshold ? kSmallStep : kLargeStep);
}

CachingAllocator::~CachingAllocator() {
  // Failures are ignored: at exit the runtime may already be unloaded, and then the driver
  // reclaims the memory itself.
  (void)cudaSetDevice(device_);
  for (const auto& [size, blocks] : free_)
    for (void* p : blocks) (void)cudaFree(p);
  for (void* p : in_use_) (void)cudaFree(p);
  for (const auto& block : pending_.waiting()) (void)cudaFree(block.ptr);
}

void* CachingAllocator::allocate(size_t bytes) {
  const size_t size = size_class(bytes);
  const std::lock_guard lock(mutex_);
  reclaim_pending_locked();
  if (auto it = free_.find(size); it != free_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached -= size;
    in_use_.insert(p);
    return p;
  }
  const DeviceGuard guard(device_);
  void* p = nullptr;
  cudaError_t status = cudaMalloc(&p, size);
  if (status == cudaErrorMemoryAllocation) {
    // The memory may sit in free lists of other classes: return those and try once more.
    (void)cudaGetLastError();
    release_cached_locked();
    status = cudaMalloc(&p, size);
  }
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(detail::concat("cuda:", device_, ": cannot allocate ", bytes,
                               " bytes of device memory: ", cudaGetErrorString(status),
                               " (kiln holds ", stats_.reserved, " bytes on this device)"));
  }
  stats_.reserved += size;
  in_use_.insert(p);
  return p;
}

void CachingAllocator::deallocate(void* ptr, size_t bytes) {
  const size_t size = size_class(bytes);
  const std::lock_guard lock(mutex_);
  in_use_.erase(ptr);
  // Still used on another stream: reclaim_pending_locked lists it as free once that work is done.
  if (!pending_.release(ptr, size)) return;
  free_[size].push_back(ptr);
  stats_.cached += size;
}

void CachingAllocator::record_stream(void* block, cudaStream_t stream) {
  const DeviceGuard guard(device_);
  cudaEvent_t event = nullptr;
  KILN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  StreamEvent use(event);
  KILN_CUDA_CHECK(cudaEventRecord(event, stream));
  const std::lock_guard lock(mutex_);
  KILN_CHECK(in_use_.contains(block), "cuda:", device_, ": ", block,
             " is not a block of device memory in use, so no stream can use it");
  pending_.record_use(block, std::move(use));
}

void CachingAllocator::reclaim_pending_locked() {
  for (const auto& [ptr, size] : pending_.collect_ready()) {
    free_[size].push_back(ptr);
    stats_.cached += size;
  }
}

void CachingAllocator::release_cached() {
  const std::lock_guard lock(mutex_);
  release_cached_locked();
}

void CachingAllocator::release_cached_locked() {
  reclaim_pending_locked();
  const DeviceGuard guard(device_);
  for (auto& [size, blocks] : free_) {
    // One block at a time, so a failure leaves the lists and stats consistent.
    while (!blocks.empty()) {
      KILN_CUDA_CHECK(cudaFree(blocks.back()));
      blocks.pop_back();
      stats_.reserved -= size;
      stats_.cached -= size;
    }
  }
  free_.clear();
}

CachingAllocator::StreamEvent::StreamEvent(StreamEvent&& other) noexcept
    : event_(std::exchange(other.event_, nullptr)) {}

CachingAllocator::StreamEvent& CachingAllocator::StreamEvent::operator=(
    StreamEvent&& other) noexcept {
  std::swap(event_, other.event_);
  return *this;
}

CachingAllocator::StreamEvent::~StreamEvent() {
  // Ignored failure: at exit the runtime may already be unloaded.
  if (event_ != nullptr) (void)cudaEventDestroy(event_);
}

// An error other than "not ready" counts as done: the device can no longer run the work, and a
// block kept for it would never come back.
bool CachingAllocator::StreamEvent::done() const {
  return cudaEventQuery(event_) != cudaErrorNotReady;
}

CachingAllocator::Stats CachingAllocator::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace kiln::cuda
