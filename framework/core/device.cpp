#include "kiln/framework/core/device.h"

#include <charconv>

#include "kiln/framework/core/error.h"

namespace kiln {

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

}  // namespace kiln
