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
      seed_generator_(options_.seed, class_name + "_seed"),
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
