#include "kiln/framework/core/device.h"

#include <charconv>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

thread_local std::optional<Device> scope_device;

}  // namespace

Device Device::parse(std::string_view text) {
  if (text == "cpu") return cpu();
  if (text == "cuda" || text == "gpu") return cuda(0);
  for (std::string_view prefix : {"cuda:", "gpu:"}) {
    if (text.substr(0, prefix.size()) == prefix) {
      int index = -1;
      const auto rest = text.substr(prefix.size());
      const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
      if (ec == std::errc() && ptr == rest.data() + rest.size() && index >= 0) return cuda(index);
    }
  }
  throw Error(detail::concat("unknown device '", text, "' (expected cpu, cuda or cuda:N)"));
}

std::string Device::to_string() const {
  return is_cpu() ? "cpu" : "cuda:" + std::to_string(index);
}

std::ostream& operator<<(std::ostream& out, const Device& device) {
  return out << device.to_string();
}

Device default_device() {
  return scope_device.value_or(Device::cpu());
}

std::optional<Device> scoped_device() {
  return scope_device;
}

DeviceScope::DeviceScope(Device device) : previous_(scope_device) {
  (void)backend_for(device);  // refuses a device this build or machine lacks, naming it
  scope_device = device;
}

DeviceScope::DeviceScope(std::string_view name) : DeviceScope(Device::parse(name)) {}

DeviceScope::~DeviceScope() {
  scope_device = previous_;
}

}  // namespace kiln
