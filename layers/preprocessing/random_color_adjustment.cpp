#include "kiln/layers/preprocessing/random_color_adjustment.h"

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

using Arguments = RandomColorAdjustment::Arguments;

}  // namespace

RandomColorAdjustment::RandomColorAdjustment(std::pair<double, double> factor,
                                             RandomColorOptions options,
                                             std::pair<double, double> bounds,
                                             std::string class_name)
    : Layer(options.layer_args()),
      factor_(factor),
      options_(std::move(options)),
      bounds_(bounds),
      class_name_(std::move(class_name)),
      seed_generator_(options_.seed, seed_name_of(class_name_)) {
  track_random_state(seed_generator_.state());
  check_value_range(options_.value_range, class_name_);
}

std::vector<Tensor> RandomColorAdjustment::call(const std::vector<Tensor>& inputs,
                                                const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, class_name_);
  if (!context.training) return {batch.restore(batch.images())};
  return {batch.restore(ops::clip(adjust(batch.images(), seed_generator_.next()),
                                  options_.value_range[0], options_.value_range[1]))};
}

namespace {

FieldTable<RandomColorAdjustment::Arguments> fields(std::pair<double, double> bounds,
                                                    const std::string& class_name) {
  using A = RandomColorAdjustment::Arguments;
  using O = RandomColorOptions;
  return with_options<A>(
      {required(factor_field<A>(bounds, class_name))},
      FieldTable<O>{data_format_field<O>(), field("value_range", &O::value_range),
                    field("seed", &O::seed)});
}

}  // namespace

Config RandomColorAdjustment::get_config() const {
  Arguments a{options_};
  a.factor = factor_;
  return write_fields(a, fields(bounds_, class_name_), Layer::get_config());
}

RandomColorAdjustment::Arguments RandomColorAdjustment::read_arguments(
    const Config& config, std::pair<double, double> bounds, const std::string& class_name) {
  return read_layer_fields(config, fields(bounds, class_name), class_name);
}

}  // namespace kiln::layers
