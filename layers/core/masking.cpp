#include "kiln/layers/core/masking.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Masking::Masking(double mask_value, MaskingOptions options)
    : Layer(options.layer_args()), mask_value_(mask_value) {
  supports_masking_ = true;
}

Tensor Masking::keep(const Tensor& x) const {
  KILN_CHECK(x.rank() >= 2, "expects inputs [batch, steps, ...features], got ", x.shape());
  const Tensor differs = ops::not_equal(x, full({}, mask_value_, x.dtype(), x.device()));
  // "Any feature differs" as the max over the last axis of 0/1 values.
  const int64_t last = x.rank() - 1;
  return ops::cast(ops::max(ops::cast(differs, DType::f32), {last}), DType::boolean);
}

std::vector<Tensor> Masking::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  return {x * ops::cast(ops::expand_dims(keep(x), x.rank() - 1), x.dtype())};
}

std::vector<Tensor> Masking::compute_mask(const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>&) {
  return {keep(inputs[0])};
}

Config Masking::get_config() const {
  return Layer::get_config().set("mask_value", mask_value_);
}

LayerPtr Masking::from_config(const Config& c) {
  return std::make_shared<Masking>(c.get_double("mask_value", 0.0),
                                   read_layer_fields<MaskingOptions>(c, "Masking", {"mask_value"}));
}

}  // namespace kiln::layers
