#include "kiln/layers/merge/concatenate.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Concatenate::Concatenate(ConcatenateOptions options)
    : Merge(options.layer_args()), axis_(options.axis) {}

Tensor Concatenate::merge(const std::vector<Tensor>& inputs) const {
  return ops::concat(inputs, axis_);
}

std::vector<Tensor> Concatenate::compute_mask(const std::vector<Tensor>& inputs,
                                              const std::vector<Tensor>& masks) {
  bool any = false;
  for (const Tensor& m : masks) any = any || m.defined();
  if (!any) return {};
  KILN_CHECK(masks.size() == inputs.size(), "Concatenate got ", masks.size(), " masks for ",
             inputs.size(), " inputs");
  std::vector<Tensor> full;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    Tensor m = masks[i].defined() ? masks[i] : ops::ones_like(x);
    if (m.rank() < x.rank()) m = ops::broadcast_like(ops::expand_dims(m, -1), x);
    full.push_back(ops::cast(m, DType::f32));
  }
  return {ops::greater(ops::max(ops::concat(full, axis_), {-1}), 0.0)};
}

Config Concatenate::get_config() const {
  return Layer::get_config().set("axis", axis_);
}

LayerPtr Concatenate::from_config(const Config& c) {
  check_layer_keys(c, {"axis"}, "Concatenate");
  ConcatenateOptions o;
  o.axis = c.get_int("axis", o.axis);
  read_layer_args(c, o);
  return std::make_shared<Concatenate>(std::move(o));
}

}  // namespace kiln::layers
