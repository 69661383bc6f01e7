#include "kiln/layers/recurrent/time_distributed.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/registry.h"

namespace kiln::layers {
namespace {

// [B, T, d2, ...] -> [-1, d2, ...]: the dims after the time axis must be known to merge B and T.
Shape steps_as_batch(const std::string& layer, const Shape& shape) {
  KILN_SHAPE_CHECK(shape.rank() >= 3, "layer '", layer,
                   "' (TimeDistributed) needs inputs of rank 3 or more ([batch, time, ...]), got ",
                   shape);
  std::vector<int64_t> dims{-1};
  for (int i = 2; i < shape.rank(); ++i) {
    KILN_SHAPE_CHECK(shape[i] >= 0, "layer '", layer,
                     "' (TimeDistributed) needs the dims after the time axis known, got ", shape);
    dims.push_back(shape[i]);
  }
  return Shape(std::move(dims));
}

}  // namespace

TimeDistributed::TimeDistributed(LayerRef layer, TimeDistributedOptions options)
    : Layer(options.layer_args()), layer_(track(layer.get())) {
  supports_masking_ = true;
}

void TimeDistributed::build(const std::vector<Shape>& input_shapes) {
  KILN_CHECK(input_shapes.size() == 1, "layer '", name(),
             "' (TimeDistributed) takes one input, got ", input_shapes.size());
  layer_->build_from({steps_as_batch(name(), input_shapes[0])});
}

std::vector<Tensor> TimeDistributed::call(const std::vector<Tensor>& inputs,
                                          const CallContext& context) {
  const Tensor& x = inputs.at(0);
  CallContext inner{context.training, {}};
  if (!context.masks.empty() && context.masks[0].defined()) {
    const Shape& mask = context.masks[0].shape();
    std::vector<int64_t> dims{-1};
    for (int i = 2; i < mask.rank(); ++i) dims.push_back(mask[i]);
    inner.masks = {ops::reshape(context.masks[0], Shape(std::move(dims)))};
  }
  std::vector<Tensor> out = (*layer_)({ops::reshape(x, steps_as_batch(name(), x.shape()))}, inner);
  for (Tensor& y : out) y = ops::unflatten_like(y, x, 2);
  return out;
}

std::vector<WeightGroup> TimeDistributed::weight_groups() const {
  std::vector<WeightGroup> out{{"", {}, name()}};
  append_weight_groups(out, "layer", *layer_);
  return out;
}

Config TimeDistributed::get_config() const {
  return Layer::get_config().set("layer", serialize_layer(*layer_));
}

LayerPtr TimeDistributed::from_config(const Config& c) {
  return std::make_shared<TimeDistributed>(
      deserialize_layer(c["layer"]),
      read_layer_fields<TimeDistributedOptions>(c, "TimeDistributed", {"layer"}));
}

}  // namespace kiln::layers
