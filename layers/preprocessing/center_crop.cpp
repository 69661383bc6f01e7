#include "kiln/layers/preprocessing/center_crop.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/image_batch.h"

namespace kiln::layers {

CenterCrop::CenterCrop(int64_t height, int64_t width, CenterCropOptions options)
    : Layer(options.layer_args()), height_(height), width_(width) {
  KILN_CHECK(height_ > 0 && width_ > 0, "CenterCrop: height and width must be positive, got ",
             height_, "x", width_);
}

std::vector<Tensor> CenterCrop::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const ImageBatch batch(inputs[0], dtype_policy().compute, "CenterCrop");
  const int64_t h = batch.height(), w = batch.width();
  KILN_SHAPE_CHECK(h > 0 && w > 0, "CenterCrop '", name(), "' needs a known height and width, got ",
                   inputs[0].shape());
  if (h < height_ || w < width_)
    return {batch.restore(smart_resize(batch.images(), height_, width_))};
  return {batch.restore(ops::slice(batch.images(), {0, (h - height_) / 2, (w - width_) / 2, 0},
                                   {-1, height_, width_, -1}))};
}

namespace {

using Options = CenterCropOptions;

struct Arguments : Options {
  int64_t height = 0, width = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("height", &Arguments::height)), required(field("width", &Arguments::width))},
      FieldTable<Options>{data_format_field<Options>()});
  return table;
}

}  // namespace

Config CenterCrop::get_config() const {
  return write_fields(Arguments{{}, height_, width_}, fields(), Layer::get_config());
}

LayerPtr CenterCrop::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "CenterCrop");
  return std::make_shared<CenterCrop>(a.height, a.width, a);
}

}  // namespace kiln::layers
