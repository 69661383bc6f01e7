#include "layers/core/dropout.h"

#include "framework/core/error.h"
#include "framework/ops/ops.h"
#include "layers/layer_config.h"

namespace kiln::layers {

Dropout::Dropout(double rate, DropoutOptions options)
    : Layer(options.layer_args()),
      rate_(rate),
      seed_(options.seed),
      seed_generator_(options.seed, "dropout_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(rate >= 0 && rate < 1, "Dropout: rate must be in [0, 1), got ", rate);
  supports_masking_ = true;
}

std::vector<Tensor> Dropout::call(const std::vector<Tensor>& inputs, const CallContext& context) {
  const Tensor& x = inputs[0];
  if (!context.training || rate_ == 0) return {x};
  const Tensor keep = ops::greater_equal(
      ops::random_uniform_like(x, seed_generator_.next(), x.dtype()), full({}, rate_, x.dtype()));
  return {ops::where(keep, x * (1.0 / (1.0 - rate_)), zeros({}, x.dtype()))};
}

Config Dropout::get_config() const {
  return Layer::get_config()
      .set("rate", rate_)
      .set("seed", seed_ ? Config(*seed_) : Config())
      .set("noise_shape", Config());
}

LayerPtr Dropout::from_config(const Config& c) {
  check_layer_keys(c, {"rate", "seed", "noise_shape"}, "Dropout");
  DropoutOptions o;
  if (const Config* s = c.find("seed"); s != nullptr && !s->is_null()) o.seed = s->as_int();
  read_layer_args(c, o);
  return std::make_shared<Dropout>(c["rate"].as_double(), std::move(o));
}

}  // namespace kiln::layers
