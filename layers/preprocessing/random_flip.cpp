#include "kiln/layers/preprocessing/random_flip.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {
namespace {

// images reversed along `axis`.
Tensor mirrored(const Tensor& images, int64_t axis) {
  std::vector<int64_t> begin(4, kSliceEnd), end(4, kSliceEnd), strides(4, 1);
  strides[static_cast<size_t>(axis)] = -1;
  return ops::strided_slice(images, begin, end, strides);
}

}  // namespace

RandomFlip::RandomFlip(RandomFlipOptions options)
    : Layer(options.layer_args()),
      options_(std::move(options)),
      seed_generator_(options_.seed, "random_flip_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(options_.mode == "horizontal" || options_.mode == "vertical" ||
                 options_.mode == "horizontal_and_vertical",
             "RandomFlip: unknown mode '", options_.mode,
             "' (horizontal, vertical or horizontal_and_vertical)");
}

std::vector<Tensor> RandomFlip::call(const std::vector<Tensor>& inputs,
                                     const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "RandomFlip");
  if (!context.training) return {batch.restore(batch.images())};
  Tensor images = batch.images();
  // One draw per image decides both flips, as Keras's does.
  const Tensor flips = ops::less_equal(uniform_per_image(images, seed_generator_.next(), 0, 1),
                                       full({}, 0.5, images.dtype(), images.device()));
  if (options_.mode != "vertical") images = ops::where(flips, mirrored(images, 2), images);
  if (options_.mode != "horizontal") images = ops::where(flips, mirrored(images, 1), images);
  return {batch.restore(images)};
}

namespace {

using Options = RandomFlipOptions;

const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      data_format_field<Options>(), field("seed", &Options::seed), field("mode", &Options::mode)};
  return table;
}

}  // namespace

Config RandomFlip::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

LayerPtr RandomFlip::from_config(const Config& c) {
  return std::make_shared<RandomFlip>(read_layer_fields(c, fields(), "RandomFlip"));
}

}  // namespace kiln::layers
