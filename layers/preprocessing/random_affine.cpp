#include "kiln/layers/preprocessing/random_affine.h"

#include <algorithm>
#include <cmath>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {

RandomAffine::RandomAffine(RandomAffineOptions options, const std::string& class_name)
    : Layer(options.layer_args()),
      options_(std::move(options)),
      seed_generator_(options_.seed, seed_name_of(class_name)),
      class_name_(class_name) {
  track_random_state(seed_generator_.state());
  (void)parse_fill_mode(options_.fill_mode, class_name_);
  (void)parse_affine_interpolation(options_.interpolation, class_name_);
}

std::vector<Tensor> RandomAffine::call(const std::vector<Tensor>& inputs,
                                       const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, class_name_);
  if (!context.training) return {batch.restore(batch.images())};
  return {batch.restore(
      affine_transform(batch.images(), draw_transforms(batch.images()),
                       parse_affine_interpolation(options_.interpolation, class_name_),
                       parse_fill_mode(options_.fill_mode, class_name_), options_.fill_value))};
}

Tensor RandomAffine::uniform_per_image(const Tensor& images, double low, double high) {
  const Tensor like = ops::slice(images, {0, 0, 0, 0}, {-1, 1, 1, 1});
  const Tensor u =
      ops::random_uniform_like(ops::reshape(like, {-1, 1}), seed_generator_.next(), DType::f32);
  return u * (high - low) + low;
}

const FieldTable<RandomAffineOptions>& random_affine_fields() {
  using Options = RandomAffineOptions;
  static const FieldTable<Options> table{
      data_format_field<Options>(), field("fill_mode", &Options::fill_mode),
      field("fill_value", &Options::fill_value), field("interpolation", &Options::interpolation),
      field("seed", &Options::seed)};
  return table;
}

RandomAffineByAxis::RandomAffineByAxis(Config height_factor, Config width_factor,
                                       RandomAffineOptions options, const std::string& class_name,
                                       bool width_optional)
    : RandomAffine(std::move(options), class_name),
      height_factor_(std::move(height_factor)),
      width_factor_(std::move(width_factor)),
      height_(affine_factor(height_factor_, "height_factor", class_name)),
      width_(width_optional && width_factor_.is_null()
                 ? height_
                 : affine_factor(width_factor_, "width_factor", class_name)),
      width_optional_(width_optional) {}

namespace {

FieldTable<RandomAffineByAxis::Arguments> by_axis_fields(bool width_optional) {
  using A = RandomAffineByAxis::Arguments;
  const auto as_given = [](const Config& c) { return c; };
  ConfigField<A> width = field("width_factor", &A::width_factor, as_given, as_given);
  return with_options<A>({required(field("height_factor", &A::height_factor, as_given, as_given)),
                          width_optional ? nullable(width) : required(width)},
                         random_affine_fields());
}

}  // namespace

Config RandomAffineByAxis::get_config() const {
  Arguments a{options_};
  a.height_factor = height_factor_;
  a.width_factor = width_factor_;
  return write_fields(a, by_axis_fields(width_optional_), Layer::get_config());
}

RandomAffineByAxis::Arguments RandomAffineByAxis::read_arguments(const Config& config,
                                                                 const std::string& class_name,
                                                                 bool width_optional) {
  return read_layer_fields(config, by_axis_fields(width_optional), class_name);
}

std::pair<double, double> affine_factor(const Config& factor, std::string_view key,
                                        std::string_view layer) {
  const std::vector<double> v =
      factor.is_list() ? factor.as_double_list() : std::vector<double>{factor.as_double()};
  KILN_CHECK(v.size() == 1 || v.size() == 2, factor.where(), layer, ": ", key,
             " must be a number or a pair [lower, upper], got ", factor.to_json());
  for (const double f : v)
    KILN_CHECK(f >= -1 && f <= 1, factor.where(), layer, ": ", key, " ", factor.to_json(),
               " lies outside [-1, 1]");
  if (v.size() == 1) return {-std::abs(v[0]), std::abs(v[0])};
  return {std::min(v[0], v[1]), std::max(v[0], v[1])};
}

}  // namespace kiln::layers
