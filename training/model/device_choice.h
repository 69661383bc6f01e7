#pragma once
// Where a compiled model runs when compile names no device: the DeviceScope's device, else a GPU
// when this build can use one and has every op's kernel for it, else the CPU, as TensorFlow
// places a Keras model.
#include <string>
#include <string_view>

#include "kiln/framework/core/device.h"

namespace kiln {

struct DeviceChoice {
  Device device;
  std::string reason;  // why this device: "named in compile", "no GPU is visible", ...
};

// `requested` is compile's device ("" for none); a named device this build or machine lacks is
// an error naming it, never a fallback to another.
DeviceChoice choose_device(std::string_view requested);

}  // namespace kiln
