#include "kiln/framework/tensor/storage.h"

#include "kiln/framework/backends/backend.h"

namespace kiln {

std::shared_ptr<Storage> Storage::allocate(const Device& device, size_t bytes) {
  Allocator& alloc = backend_for(device).allocator(device.index);
  void* data = alloc.allocate(bytes);
  return std::shared_ptr<Storage>(new Storage(data, bytes, device, &alloc));
}

Storage::~Storage() {
  allocator_->deallocate(data_, nbytes_);
}

}  // namespace kiln
