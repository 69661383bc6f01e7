#include "kiln/framework/tensor/storage.h"

#include <algorithm>
#include <new>
#include <string>

#include "kiln/framework/backends/backend.h"

namespace kiln {

std::shared_ptr<Storage> Storage::allocate(const Device& device, size_t bytes) {
  Allocator& alloc = backend_for(device).allocator(device.index);
  void* data = alloc.allocate(bytes);
  return std::shared_ptr<Storage>(new Storage(data, bytes, device, &alloc));
}

std::shared_ptr<Storage> Storage::allocate_strings(size_t count) {
  std::shared_ptr<Storage> storage =
      allocate(Device::cpu(), std::max<size_t>(count, 1) * sizeof(std::string));
  auto* strings = static_cast<std::string*>(storage->data_);
  for (size_t i = 0; i < count; ++i) new (strings + i) std::string();
  storage->strings_ = count;
  return storage;
}

Storage::~Storage() {
  auto* strings = static_cast<std::string*>(data_);
  for (size_t i = 0; i < strings_; ++i) strings[i].~basic_string();
  allocator_->deallocate(data_, nbytes_);
}

}  // namespace kiln
