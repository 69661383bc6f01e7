#include "kiln/layers/pooling/pooling.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {

Pooling::Pooling(int rank, Kind kind, std::string_view what, std::vector<int64_t> pool_size,
                 PoolingOptions options)
    : Layer(options.layer_args()), rank_(rank), kind_(kind), options_(std::move(options)) {
  std::string prefix(what);
  prefix += ' ';
  pool_size_ = per_axis(pool_size, rank, prefix + "pool_size");
  options_.strides =
      options_.strides.empty() ? pool_size_ : per_axis(options_.strides, rank, prefix + "strides");
  ops::parse_padding(options_.padding);  // "valid" or "same", else an error
}

std::vector<Tensor> Pooling::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == rank_ + 2, "expects inputs [batch, ", rank_,
             " spatial dims, channels], got ", x.shape());
  const auto pool = [&](const Tensor& image, std::vector<int64_t> size,
                        std::vector<int64_t> strides) {
    const ops::Padding padding = ops::parse_padding(options_.padding);
    return kind_ == Kind::max
               ? ops::max_pool2d(image, std::move(size), std::move(strides), padding)
               : ops::avg_pool2d(image, std::move(size), std::move(strides), padding);
  };
  if (rank_ == 2) return {pool(x, pool_size_, options_.strides)};
  // 1-D pooling is 2-D pooling over a height of 1.
  return {ops::squeeze(pool(ops::expand_dims(x, 1), {1, pool_size_[0]}, {1, options_.strides[0]}),
                       {1})};
}

const FieldTable<Pooling::Arguments>& Pooling::fields() {
  static const FieldTable<Arguments> table =
      with_options<Arguments>({field("pool_size", &Arguments::pool_size)},
                              FieldTable<PoolingOptions>{field("padding", &PoolingOptions::padding),
                                                         field("strides", &PoolingOptions::strides),
                                                         channels_last_field<PoolingOptions>()});
  return table;
}

Config Pooling::get_config() const {
  return write_fields(Arguments{options_, pool_size_}, fields(), Layer::get_config());
}

Pooling::Arguments Pooling::arguments_of(const Config& c, std::string_view class_name) {
  return read_layer_fields(c, fields(), class_name);
}

LayerPtr MaxPooling1D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "MaxPooling1D");
  return std::make_shared<MaxPooling1D>(a.pool_size, a);
}

LayerPtr MaxPooling2D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "MaxPooling2D");
  return std::make_shared<MaxPooling2D>(a.pool_size, a);
}

LayerPtr AveragePooling1D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "AveragePooling1D");
  return std::make_shared<AveragePooling1D>(a.pool_size, a);
}

LayerPtr AveragePooling2D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "AveragePooling2D");
  return std::make_shared<AveragePooling2D>(a.pool_size, a);
}

}  // namespace kiln::layers
