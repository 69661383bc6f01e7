#pragma once
// The device abstraction every backend implements. CPU is always present; CUDA registers itself
// when kiln is built with it and a GPU is visible. Streams and communicators hang off this
// interface so the executor and distribution code never name a concrete backend.
#include <cstddef>
#include <memory>

#include "kiln/framework/core/device.h"

namespace kiln {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory aligned to at least kAlignment bytes; throws kiln::Error when out of memory.
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr, size_t bytes) = 0;
  static constexpr size_t kAlignment = 64;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceType type() const = 0;
  // Number of devices of this type visible to the process (0 when the driver finds none).
  virtual int device_count() const = 0;
  virtual Allocator& allocator(int index) = 0;
  // Copies are ordered on the device's current stream with its kernels. A copy to the host is
  // complete on return; the others may still be queued, but their source may be reused (and a
  // host source freed) on return.
  virtual void copy_from_host(void* dst, const void* src, size_t bytes, int index) = 0;
  virtual void copy_to_host(void* dst, const void* src, size_t bytes, int index) = 0;
  virtual void copy_on_device(void* dst, const void* src, size_t bytes, int index) = 0;
  virtual void synchronize(int index) = 0;
};

// The backend for a device type; throws a clear error when it was not built or has no device.
Backend& backend_for(const Device& device);
// True when a CUDA backend was built in and sees at least one GPU.
bool cuda_available();

// Test support: CUDA devices are `backend`'s (nullptr: the built-in one again), so the placement
// of a whole training run can be tested on a machine without a GPU (tests/devices/).
void replace_cuda_backend(Backend* backend);

// Called first on a thread kiln starts beside the one running the model (a dataset's prefetch
// worker): the CPU kernels it runs then compute on it alone, instead of starting a second OpenMP
// team that competes with the training step's for the same cores, with the pool's
// floating-point mode (denormals flushed).
void configure_background_thread();

// How many threads (the OpenMP team size) the CPU kernels run on when called from this thread.
int cpu_threads();
// Sets that count (at least 1) for this thread, and the pool's floating-point mode (denormals
// flushed): each of MirroredStrategy's replica threads takes its share of the cores.
void set_cpu_threads(int threads);

}  // namespace kiln
