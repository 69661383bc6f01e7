#include "kiln/layers/reshaping/up_sampling2d.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {
namespace {

// Each source index `factor` times in a row: {0, 0, 1, 1, ...}, on the input's device.
Tensor repeated_indices(int64_t length, int64_t factor, const Device& device) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < length; ++i)
    for (int64_t k = 0; k < factor; ++k) idx.push_back(i);
  return from_vector(idx, {length * factor}, DType::i64, device);
}

}  // namespace

UpSampling2D::UpSampling2D(std::vector<int64_t> size, UpSampling2DOptions options)
    : Layer(options.layer_args()),
      size_(per_axis(size, 2, "UpSampling2D size")),
      options_(std::move(options)) {
  KILN_CHECK(options_.interpolation == "nearest", "UpSampling2D: interpolation '",
             options_.interpolation, "' is not supported; kiln implements 'nearest'");
}

std::vector<Tensor> UpSampling2D::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == 4 && x.dim(1) >= 0 && x.dim(2) >= 0,
             "UpSampling2D expects NHWC inputs with known height and width, got ", x.shape());
  // Nearest-neighbour upsampling by an integer factor is a gather of repeated indices per axis.
  const Tensor rows = ops::gather(x, repeated_indices(x.dim(1), size_[0], x.device()), 1);
  return {ops::gather(rows, repeated_indices(x.dim(2), size_[1], rows.device()), 2)};
}

namespace {

// The options with size (Keras's default 2 on both axes).
struct Arguments : UpSampling2DOptions {
  std::vector<int64_t> size = {2, 2};
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {field("size", &Arguments::size)},
      FieldTable<UpSampling2DOptions>{channels_last_field<UpSampling2DOptions>(),
                                      field("interpolation", &UpSampling2DOptions::interpolation)});
  return table;
}

}  // namespace

Config UpSampling2D::get_config() const {
  return write_fields(Arguments{options_, size_}, fields(), Layer::get_config());
}

LayerPtr UpSampling2D::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "UpSampling2D");
  return std::make_shared<UpSampling2D>(a.size, a);
}

}  // namespace kiln::layers
