#pragma once
// The factories of kiln's own layers, by Keras class name (what the registry starts with). Listed
// in one place: static registration from each layer's file would be dropped by the linker.
#include <functional>
#include <map>
#include <string>

#include "kiln/framework/core/config.h"
#include "kiln/layers/layer.h"

namespace kiln::layers {

std::map<std::string, std::function<LayerPtr(const Config&)>, std::less<>>
builtin_layer_factories();

}  // namespace kiln::layers
