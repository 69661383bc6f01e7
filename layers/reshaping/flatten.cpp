#include "kiln/layers/reshaping/flatten.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {

std::vector<Tensor> Flatten::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Shape& s = inputs[0].shape();
  int64_t inner = 1;
  for (int i = 1; i < s.rank(); ++i) {
    KILN_CHECK(s[i] >= 0, "layer '", name(), "' (Flatten) needs known non-batch dims, got ", s);
    inner *= s[i];
  }
  return {ops::reshape(inputs[0], {-1, inner})};
}

Config Flatten::get_config() const {
  return Layer::get_config().set("data_format", "channels_last");
}

LayerPtr Flatten::from_config(const Config& c) {
  check_layer_keys(c, {"data_format"}, "Flatten");
  require_channels_last(c, "Flatten");  // channels_first would flatten in another order
  FlattenOptions o;
  read_layer_args(c, o);
  return std::make_shared<Flatten>(std::move(o));
}

}  // namespace kiln::layers
