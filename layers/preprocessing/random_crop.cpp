#include "kiln/layers/preprocessing/random_crop.h"

#include <algorithm>
#include <numeric>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/image_resampling.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {

RandomCrop::RandomCrop(int64_t height, int64_t width, RandomCropOptions options)
    : Layer(options.layer_args()),
      height_(height),
      width_(width),
      options_(std::move(options)),
      seed_generator_(options_.seed, "random_crop_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(height_ > 0 && width_ > 0, "RandomCrop: height and width must be positive, got ",
             height_, "x", width_);
}

Tensor RandomCrop::random_window(const Tensor& images, const Tensor& at, int64_t axis,
                                 int64_t size) const {
  const int64_t room = images.dim(axis) - size + 1;  // the offsets there are
  const Tensor offset =
      ops::cast(ops::minimum(at * static_cast<double>(room), room - 1.0), DType::i64);
  std::vector<int64_t> steps(static_cast<size_t>(size));
  std::iota(steps.begin(), steps.end(), int64_t{0});
  const Tensor indices = from_vector(steps, {size}, DType::i64, images.device()) + offset;
  return ops::gather(images, indices, axis);
}

Tensor RandomCrop::fallback(const Tensor& images) const {
  const int64_t h = images.dim(1), w = images.dim(2);
  // Keras slices target-sized from the aspect-ratio window's corner (as far as the image goes),
  // not the window itself, and resizes what it gets.
  const ops::ImageWindow window = ops::aspect_ratio_window(h, w, height_, width_);
  const Tensor sliced =
      ops::slice(images, {0, window.top, window.left, 0},
                 {-1, std::min(height_, h - window.top), std::min(width_, w - window.left), -1});
  if (sliced.dim(1) == height_ && sliced.dim(2) == width_) return sliced;
  return ops::resize_images(sliced, height_, width_, ops::Interpolation::bilinear);
}

std::vector<Tensor> RandomCrop::call(const std::vector<Tensor>& inputs,
                                     const CallContext& context) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "RandomCrop");
  const int64_t h = batch.height(), w = batch.width();
  KILN_SHAPE_CHECK(h > 0 && w > 0, "RandomCrop '", name(), "' needs a known height and width, got ",
                   inputs[0].shape());
  if (!context.training) return {batch.restore(smart_resize(batch.images(), height_, width_))};
  if (h <= height_ || w <= width_) return {batch.restore(fallback(batch.images()))};
  const Tensor& images = batch.images();
  const Tensor at = ops::random_uniform_like(zeros({2}, images.dtype(), images.device()),
                                             seed_generator_.next(), images.dtype());
  const std::vector<Tensor> corner = ops::split(at, 2, 0);
  const Tensor rows = random_window(images, ops::squeeze(corner[0]), 1, height_);
  return {batch.restore(random_window(rows, ops::squeeze(corner[1]), 2, width_))};
}

namespace {

using Options = RandomCropOptions;

struct Arguments : Options {
  int64_t height = 0, width = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("height", &Arguments::height)), required(field("width", &Arguments::width))},
      FieldTable<Options>{field("seed", &Options::seed), data_format_field<Options>()});
  return table;
}

}  // namespace

Config RandomCrop::get_config() const {
  return write_fields(Arguments{options_, height_, width_}, fields(), Layer::get_config());
}

LayerPtr RandomCrop::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "RandomCrop");
  return std::make_shared<RandomCrop>(a.height, a.width, a);
}

}  // namespace kiln::layers
