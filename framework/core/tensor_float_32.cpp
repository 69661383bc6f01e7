#include "kiln/framework/core/tensor_float_32.h"

#include <atomic>

namespace kiln {
namespace {

// Read by every GPU matmul and convolution as it runs; set between steps.
std::atomic<bool> tensor_float_32{false};

}  // namespace

void enable_tensor_float_32_execution(bool enabled) {
  tensor_float_32.store(enabled, std::memory_order_relaxed);
}

bool tensor_float_32_execution_enabled() {
  return tensor_float_32.load(std::memory_order_relaxed);
}

}  // namespace kiln
