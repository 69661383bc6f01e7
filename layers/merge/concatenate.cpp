#include "kiln/layers/merge/concatenate.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Concatenate::Concatenate(ConcatenateOptions options)
    : Merge(options.layer_args()), options_(std::move(options)) {}

Tensor Concatenate::merge(const std::vector<Tensor>& inputs) const {
  return ops::concat(inputs, options_.axis);
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
  return {ops::greater(ops::max(ops::concat(full, options_.axis), {-1}), 0.0)};
}

namespace {

const FieldTable<ConcatenateOptions>& fields() {
  static const FieldTable<ConcatenateOptions> table{field("axis", &ConcatenateOptions::axis)};
  return table;
}

}  // namespace

Config Concatenate::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

LayerPtr Concatenate::from_config(const Config& c) {
  return std::make_shared<Concatenate>(read_layer_fields(c, fields(), "Concatenate"));
}

}  // namespace kiln::layers
