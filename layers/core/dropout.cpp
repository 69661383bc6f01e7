#include "kiln/layers/core/dropout.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Dropout::Dropout(double rate, DropoutOptions options)
    : Layer(options.layer_args()),
      rate_(rate),
      seed_(options.seed),
      noise_shape_(options.noise_shape),
      seed_generator_(options.seed, "dropout_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(rate >= 0 && rate < 1, "Dropout: rate must be in [0, 1), got ", rate);
  supports_masking_ = true;
}

std::vector<Tensor> Dropout::call(const std::vector<Tensor>& inputs, const CallContext& context) {
  const Tensor& x = inputs[0];
  if (!context.training || rate_ == 0) return {x};
  const Tensor keep = ops::greater_equal(
      ops::random_uniform_like(mask_template(x), seed_generator_.next(), x.dtype()),
      full({}, rate_, x.dtype()));
  return {ops::where(keep, x * (1.0 / (1.0 - rate_)), zeros({}, x.dtype()))};
}

Tensor Dropout::mask_template(const Tensor& x) const {
  if (noise_shape_.empty()) return x;
  KILN_SHAPE_CHECK(static_cast<int>(noise_shape_.size()) == x.rank(), "Dropout: noise_shape ",
                   Shape(noise_shape_), " has ", noise_shape_.size(), " axes, the input ",
                   x.shape(), " has ", x.rank());
  // The first entry along each axis one choice covers, the whole of the others: a slice reads
  // only the mask's elements, and keeps unknown sizes (the batch) unknown.
  std::vector<int64_t> size(noise_shape_.size(), -1);
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t n = noise_shape_[static_cast<size_t>(i)];
    KILN_SHAPE_CHECK(n == -1 || n == 1 || x.dim(i) < 0 || n == x.dim(i), "Dropout: noise_shape ",
                     Shape(noise_shape_), " does not broadcast to the input ", x.shape());
    if (n == 1) size[static_cast<size_t>(i)] = 1;
  }
  return ops::slice(x, std::vector<int64_t>(size.size(), 0), size);
}

Config Dropout::noise_shape_config() const {
  if (noise_shape_.empty()) return {};
  Config list = Config::list();
  for (const int64_t n : noise_shape_) list.as_list().push_back(n < 0 ? Config() : Config(n));
  return list;
}

Config Dropout::get_config() const {
  return Layer::get_config()
      .set("rate", rate_)
      .set("seed", seed_ ? Config(*seed_) : Config())
      .set("noise_shape", noise_shape_config());
}

LayerPtr Dropout::from_config(const Config& c) {
  check_layer_keys(c, {"rate", "seed", "noise_shape"}, "Dropout");
  DropoutOptions o;
  if (const Config* s = c.find("seed"); s != nullptr && !s->is_null()) o.seed = s->as_int();
  if (const Config* n = c.find("noise_shape"); n != nullptr && !n->is_null())
    for (const Config& d : n->as_list()) o.noise_shape.push_back(d.is_null() ? -1 : d.as_int());
  read_layer_args(c, o);
  return std::make_shared<Dropout>(c["rate"].as_double(), std::move(o));
}

}  // namespace kiln::layers
