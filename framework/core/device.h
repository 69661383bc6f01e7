#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace kiln {

enum class DeviceType : uint8_t { cpu, cuda };
inline constexpr int kNumDeviceTypes = 2;

// Where a tensor's storage lives: "cpu" or "cuda:N".
struct Device {
  DeviceType type = DeviceType::cpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceType::cuda, index}; }
  static Device parse(std::string_view text);  // "cpu", "cuda", "cuda:1"

  bool is_cpu() const { return type == DeviceType::cpu; }
  bool is_cuda() const { return type == DeviceType::cuda; }
  std::string to_string() const;
  bool operator==(const Device&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Device& device);

// The device tensors are created on when no device is named: the innermost DeviceScope's on this
// thread, else the CPU, as torch's factory functions. A model picks its own (compile's device).
Device default_device();
// The innermost DeviceScope's device on this thread; nothing outside every scope.
std::optional<Device> scoped_device();

// While alive, tensors this thread creates without naming a device go to `device`, as under
// `with tf.device(...)` or `with torch.device(...)`; a model compiled under the scope trains
// there. The device must exist (a CUDA build and a visible GPU for cuda:N). Scopes nest.
class DeviceScope {
 public:
  explicit DeviceScope(Device device);
  explicit DeviceScope(std::string_view name);  // "cpu", "cuda", "cuda:1"
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  std::optional<Device> previous_;
};

}  // namespace kiln
