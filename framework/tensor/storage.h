#pragma once
#include <cstddef>
#include <memory>

#include "kiln/framework/core/device.h"

namespace kiln {

class Allocator;

// A block of device memory owned through the backend's allocator.
class Storage {
 public:
  static std::shared_ptr<Storage> allocate(const Device& device, size_t bytes);
  // Host memory holding `count` empty std::string objects (DType::string), destroyed with it.
  static std::shared_ptr<Storage> allocate_strings(size_t count);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  const Device& device() const { return device_; }

 private:
  Storage(void* data, size_t nbytes, Device device, Allocator* allocator)
      : data_(data), nbytes_(nbytes), device_(device), allocator_(allocator) {}
  void* data_;
  size_t strings_ = 0;  // std::string objects constructed in data_
  size_t nbytes_;
  Device device_;
  Allocator* allocator_;
};

}  // namespace kiln
