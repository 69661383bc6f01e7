#include "kiln/layers/core/dropout.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Dropout::Dropout(double rate, DropoutOptions options)
    : Layer(options.layer_args()),
      rate_(rate),
      options_(std::move(options)),
      seed_generator_(options_.seed, "dropout_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(rate >= 0 && rate < 1, "Dropout: rate must be in [0, 1), got ", rate);
  supports_masking_ = true;
}

std::vector<Tensor> Dropout::call(const std::vector<Tensor>& inputs, const CallContext& context) {
  const Tensor& x = inputs[0];
  if (!context.training || rate_ == 0) return {x};
  const Tensor keep = ops::greater_equal(
      ops::random_uniform_like(mask_template(x), seed_generator_.next(), x.dtype()),
      full({}, rate_, x.dtype(), x.device()));
  return {ops::where(keep, x * (1.0 / (1.0 - rate_)), zeros({}, x.dtype(), x.device()))};
}

Tensor Dropout::mask_template(const Tensor& x) const {
  if (options_.noise_shape.empty()) return x;
  KILN_SHAPE_CHECK(static_cast<int>(options_.noise_shape.size()) == x.rank(),
                   "Dropout: noise_shape ", Shape(options_.noise_shape), " has ",
                   options_.noise_shape.size(), " axes, the input ", x.shape(), " has ", x.rank());
  // The first entry along each axis one choice covers, the whole of the others: a slice reads
  // only the mask's elements, and keeps unknown sizes (the batch) unknown.
  std::vector<int64_t> size(options_.noise_shape.size(), -1);
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t n = options_.noise_shape[static_cast<size_t>(i)];
    KILN_SHAPE_CHECK(n == -1 || n == 1 || x.dim(i) < 0 || n == x.dim(i), "Dropout: noise_shape ",
                     Shape(options_.noise_shape), " does not broadcast to the input ", x.shape());
    if (n == 1) size[static_cast<size_t>(i)] = 1;
  }
  return ops::slice(x, std::vector<int64_t>(size.size(), 0), size);
}

namespace {

using Options = DropoutOptions;

// Keras writes noise_shape as a list with null for the input's size, or null for none.
const FieldTable<Options>& option_fields() {
  static const FieldTable<Options> table{
      field("seed", &Options::seed),
      field(
          "noise_shape", &Options::noise_shape,
          [](const Config& shape) { return deserialize_shape(shape).dims(); },
          [](const std::vector<int64_t>& shape) {
            return shape.empty() ? Config() : serialize_shape(Shape(shape));
          })};
  return table;
}

// The options with the required arguments.
struct Arguments : Options {
  double rate = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table =
      with_options<Arguments>({required(field("rate", &Arguments::rate))}, option_fields());
  return table;
}

}  // namespace

Config Dropout::get_config() const {
  return write_fields(Arguments{options_, rate_}, fields(), Layer::get_config());
}

LayerPtr Dropout::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Dropout");
  return std::make_shared<Dropout>(a.rate, a);
}

}  // namespace kiln::layers
