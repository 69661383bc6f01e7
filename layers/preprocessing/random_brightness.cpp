#include "kiln/layers/preprocessing/random_brightness.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

constexpr std::pair<double, double> kBounds{-1.0, 1.0};

}  // namespace

RandomBrightness::RandomBrightness(std::pair<double, double> factor,
                                   RandomBrightnessOptions options)
    : Layer(options.layer_args()),
      factor_(factor),
      options_(std::move(options)),
      seed_generator_(options_.seed, "random_brightness_seed") {
  track_random_state(seed_generator_.state());
  check_value_range(options_.value_range, "RandomBrightness");
}

RandomBrightness::RandomBrightness(double factor, RandomBrightnessOptions options)
    : RandomBrightness(read_factor(Config(factor), kBounds, "RandomBrightness"),
                       std::move(options)) {}

std::vector<Tensor> RandomBrightness::call(const std::vector<Tensor>& inputs,
                                           const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "RandomBrightness");
  if (!context.training) return {batch.restore(batch.images())};
  const double low = options_.value_range[0], high = options_.value_range[1];
  const Tensor delta =
      uniform_per_image(batch.images(), seed_generator_.next(), factor_.first * (high - low),
                        factor_.second * (high - low));
  return {batch.restore(ops::clip(batch.images() + delta, low, high))};
}

namespace {

using Options = RandomBrightnessOptions;

struct Arguments : Options {
  std::pair<double, double> factor;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(factor_field<Arguments>(kBounds, "RandomBrightness"))},
      FieldTable<Options>{data_format_field<Options>(), field("value_range", &Options::value_range),
                          field("seed", &Options::seed)});
  return table;
}

}  // namespace

Config RandomBrightness::get_config() const {
  Arguments a{options_};
  a.factor = factor_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr RandomBrightness::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomBrightness");
  return std::make_shared<RandomBrightness>(a.factor, a);
}

}  // namespace kiln::layers
