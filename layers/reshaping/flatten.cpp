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

namespace {

// channels_first would flatten in another order.
const FieldTable<FlattenOptions>& fields() {
  static const FieldTable<FlattenOptions> table{channels_last_field<FlattenOptions>()};
  return table;
}

}  // namespace

Config Flatten::get_config() const {
  return write_fields(FlattenOptions{}, fields(), Layer::get_config());
}

LayerPtr Flatten::from_config(const Config& c) {
  return std::make_shared<Flatten>(read_layer_fields(c, fields(), "Flatten"));
}

}  // namespace kiln::layers
