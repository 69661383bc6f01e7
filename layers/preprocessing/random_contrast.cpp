#include "kiln/layers/preprocessing/random_contrast.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

constexpr std::pair<double, double> kBounds{0.0, 1.0};

}  // namespace

RandomContrast::RandomContrast(std::pair<double, double> factor, RandomContrastOptions options)
    : Layer(options.layer_args()),
      factor_(factor),
      options_(std::move(options)),
      seed_generator_(options_.seed, "random_contrast_seed") {
  track_random_state(seed_generator_.state());
  check_value_range(options_.value_range, "RandomContrast");
}

RandomContrast::RandomContrast(double factor, RandomContrastOptions options)
    : RandomContrast(read_factor(Config(factor), kBounds, "RandomContrast"), std::move(options)) {}

std::vector<Tensor> RandomContrast::call(const std::vector<Tensor>& inputs,
                                         const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "RandomContrast");
  if (!context.training) return {batch.restore(batch.images())};
  const Tensor& images = batch.images();
  const Tensor factor =
      uniform_per_image(images, seed_generator_.next(), 1 - factor_.first, 1 + factor_.second);
  const Tensor mean = ops::mean(images, {1, 2}, true);
  return {batch.restore(ops::clip((images - mean) * factor + mean, options_.value_range[0],
                                  options_.value_range[1]))};
}

namespace {

using Options = RandomContrastOptions;

struct Arguments : Options {
  std::pair<double, double> factor;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(factor_field<Arguments>(kBounds, "RandomContrast"))},
      FieldTable<Options>{data_format_field<Options>(), field("value_range", &Options::value_range),
                          field("seed", &Options::seed)});
  return table;
}

}  // namespace

Config RandomContrast::get_config() const {
  Arguments a{options_};
  a.factor = factor_;
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr RandomContrast::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomContrast");
  return std::make_shared<RandomContrast>(a.factor, a);
}

}  // namespace kiln::layers
