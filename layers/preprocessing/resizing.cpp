#include "kiln/layers/preprocessing/resizing.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/image_resampling.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {

Resizing::Resizing(int64_t height, int64_t width, ResizingOptions options)
    : Layer(options.layer_args()), height_(height), width_(width), options_(std::move(options)) {
  KILN_CHECK(height_ > 0 && width_ > 0, "Resizing: height and width must be positive, got ",
             height_, "x", width_);
  (void)ops::parse_interpolation(options_.interpolation);
  KILN_CHECK(!(options_.crop_to_aspect_ratio && options_.pad_to_aspect_ratio),
             "Resizing: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be true");
}

Tensor Resizing::pad_to_aspect_ratio(const Tensor& images) const {
  const int64_t h = images.dim(1), w = images.dim(2);
  const auto padded_h = std::max(
      h, static_cast<int64_t>(static_cast<float>(w * height_) / static_cast<float>(width_)));
  const auto padded_w = std::max(
      w, static_cast<int64_t>(static_cast<float>(h * width_) / static_cast<float>(height_)));
  const auto top = static_cast<int64_t>(static_cast<float>(padded_h - h) / 2);
  const auto left = static_cast<int64_t>(static_cast<float>(padded_w - w) / 2);
  if (top == 0 && left == 0) return images;
  return ops::pad(images, {{0, 0}, {top, top}, {left, left}, {0, 0}}, options_.fill_value);
}

std::vector<Tensor> Resizing::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "Resizing");
  Tensor images = batch.images();
  KILN_SHAPE_CHECK(batch.height() > 0 && batch.width() > 0, "Resizing '", name(),
                   "' needs a known height and width, got ", inputs[0].shape());
  if (options_.crop_to_aspect_ratio) images = crop_to_aspect_ratio(images, height_, width_);
  if (options_.pad_to_aspect_ratio) images = pad_to_aspect_ratio(images);
  return {batch.restore(ops::resize_images(images, height_, width_,
                                           ops::parse_interpolation(options_.interpolation),
                                           options_.antialias))};
}

namespace {

using Options = ResizingOptions;

struct Arguments : Options {
  int64_t height = 0, width = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("height", &Arguments::height)), required(field("width", &Arguments::width))},
      FieldTable<Options>{
          data_format_field<Options>(), field("interpolation", &Options::interpolation),
          field("crop_to_aspect_ratio", &Options::crop_to_aspect_ratio),
          field("pad_to_aspect_ratio", &Options::pad_to_aspect_ratio),
          fixed_field<Options>("fill_mode", Config("constant"), "Keras has only constant"),
          field("fill_value", &Options::fill_value), field("antialias", &Options::antialias)});
  return table;
}

}  // namespace

Config Resizing::get_config() const {
  return write_fields(Arguments{options_, height_, width_}, fields(), Layer::get_config());
}

LayerPtr Resizing::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Resizing");
  return std::make_shared<Resizing>(a.height, a.width, a);
}

}  // namespace kiln::layers
