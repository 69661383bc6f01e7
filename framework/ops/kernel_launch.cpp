#include "kiln/framework/ops/kernel_launch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln {
namespace {

std::atomic<bool>& synchronous_flag() {
  static std::atomic<bool> flag = [] {
    const char* env = std::getenv("KILN_CUDA_SYNC");
    return env != nullptr && std::strcmp(env, "1") == 0;
  }();
  return flag;
}

std::string describe_launch(OpId op, const KernelContext& c) {
  std::ostringstream out;
  out << "kiln::ops::" << op_def(op).name << " on " << c.output.device() << " (inputs: ";
  for (size_t i = 0; i < c.inputs.size(); ++i)
    out << (i ? ", " : "") << (c.inputs[i].defined() ? describe(c.inputs[i].meta()) : "none");
  if (c.inputs.empty()) out << "none";
  out << "; output: " << describe(c.output.meta());
  if (!c.attrs.empty()) out << "; " << c.attrs.to_string();
  out << ")";
  return out.str();
}

}  // namespace

bool synchronous_kernels() {
  return synchronous_flag().load(std::memory_order_relaxed);
}

void set_synchronous_kernels(bool on) {
  synchronous_flag().store(on, std::memory_order_relaxed);
}

void launch_kernel(OpId op, KernelFn kernel, const PreparedKernel* prepared,
                   const KernelContext& c) {
  const Device device = c.output.device();
  if (device.is_cpu()) {
    // CPU kernels finish before they return and name their op in their own errors.
    prepared != nullptr ? prepared->run(c) : kernel(c);
    return;
  }
  try {
    prepared != nullptr ? prepared->run(c) : kernel(c);
    if (synchronous_kernels()) backend_for(device).synchronize(device.index);
  } catch (const Error& e) {
    throw Error(detail::concat(describe_launch(op, c), " failed: ", e.what()));
  }
}

}  // namespace kiln
