#include "kiln/training/model/device_choice.h"

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/op_def.h"

namespace kiln {

DeviceChoice choose_device(std::string_view requested) {
  if (!requested.empty()) {
    try {
      const Device device = Device::parse(requested);
      (void)backend_for(device);
      return {device, "named in compile"};
    } catch (const Error& e) {
      throw Error(detail::concat("compile: device '", requested, "': ", e.what()));
    }
  }
  if (const std::optional<Device> scoped = scoped_device()) return {*scoped, "the DeviceScope's"};
  if (cuda_available()) {
    // A GPU is chosen unasked only when kiln can run every op there: a model that trains on the
    // CPU keeps training when kiln meets a GPU whose backend is still missing kernels.
    const std::vector<std::string_view> missing = ops_without_kernel(DeviceType::cuda);
    if (missing.empty()) return {Device::cuda(0), "a GPU is visible"};
    std::string reason =
        detail::concat("a GPU is visible, but kiln's CUDA backend has no kernel for ",
                       missing.size(), " ops yet (");
    for (size_t i = 0; i < missing.size() && i < 3; ++i)
      reason += detail::concat(i > 0 ? ", " : "", missing[i]);
    reason += missing.size() > 3 ? ", ...); name cuda:0 to use it" : "); name cuda:0 to use it";
    return {Device::cpu(), reason};
  }
#ifdef KILN_WITH_CUDA
  return {Device::cpu(), "no GPU is visible"};
#else
  return {Device::cpu(), "this build has no CUDA"};
#endif
}

}  // namespace kiln
