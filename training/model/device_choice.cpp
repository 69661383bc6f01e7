#include "kiln/training/model/device_choice.h"

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"

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
  if (cuda_available()) return {Device::cuda(0), "a GPU is visible"};
#ifdef KILN_WITH_CUDA
  return {Device::cpu(), "no GPU is visible"};
#else
  return {Device::cpu(), "this build has no CUDA"};
#endif
}

}  // namespace kiln
