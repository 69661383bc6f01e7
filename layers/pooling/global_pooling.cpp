#include "kiln/layers/pooling/global_pooling.h"

#include <limits>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {

GlobalPooling::GlobalPooling(int rank, Kind kind, GlobalPoolingOptions options)
    : Layer(options.layer_args()), rank_(rank), kind_(kind), options_(std::move(options)) {
  supports_masking_ = true;  // it consumes the steps' mask (1D) and outputs none
}

std::vector<Tensor> GlobalPooling::call(const std::vector<Tensor>& inputs,
                                        const CallContext& context) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == rank_ + 2, "expects inputs [batch, ", rank_,
             " spatial dims, channels], got ", x.shape());
  std::vector<int64_t> axes;
  for (int i = 1; i <= rank_; ++i) axes.push_back(i);
  const Tensor mask = context.masks.empty() ? Tensor() : context.masks[0];
  if (rank_ != 1 || !mask.defined())
    return {kind_ == Kind::max ? ops::max(x, axes, options_.keepdims)
                               : ops::mean(x, axes, options_.keepdims)};
  KILN_CHECK(mask.rank() == 2, "expects a [batch, steps] mask, got ", mask.shape());
  const Tensor kept = ops::expand_dims(mask, 2);
  if (kind_ == Kind::max) {
    // Masked steps take the lowest value, so they never win (a fully masked row gives it).
    const Tensor lowest = full({}, std::numeric_limits<double>::lowest(), x.dtype(), x.device());
    return {ops::max(ops::where(kept, x, lowest), axes, options_.keepdims)};
  }
  // The mean over the kept steps only (Keras divides without an epsilon, as here).
  const Tensor weight = ops::cast(kept, x.dtype());
  return {ops::sum(x * weight, axes, options_.keepdims) /
          ops::sum(ops::broadcast_like(weight, x), axes, options_.keepdims)};
}

std::vector<Tensor> GlobalPooling::compute_mask(const std::vector<Tensor>&,
                                                const std::vector<Tensor>&) {
  return {};
}

namespace {

const FieldTable<GlobalPoolingOptions>& fields() {
  static const FieldTable<GlobalPoolingOptions> table{
      channels_last_field<GlobalPoolingOptions>(),
      field("keepdims", &GlobalPoolingOptions::keepdims)};
  return table;
}

}  // namespace

Config GlobalPooling::get_config() const {
  return write_fields(options_, fields(), Layer::get_config());
}

GlobalPoolingOptions GlobalPooling::options_of(const Config& c, std::string_view class_name) {
  return read_layer_fields(c, fields(), class_name);
}

LayerPtr GlobalAveragePooling1D::from_config(const Config& c) {
  return std::make_shared<GlobalAveragePooling1D>(options_of(c, "GlobalAveragePooling1D"));
}
LayerPtr GlobalAveragePooling2D::from_config(const Config& c) {
  return std::make_shared<GlobalAveragePooling2D>(options_of(c, "GlobalAveragePooling2D"));
}
LayerPtr GlobalMaxPooling1D::from_config(const Config& c) {
  return std::make_shared<GlobalMaxPooling1D>(options_of(c, "GlobalMaxPooling1D"));
}
LayerPtr GlobalMaxPooling2D::from_config(const Config& c) {
  return std::make_shared<GlobalMaxPooling2D>(options_of(c, "GlobalMaxPooling2D"));
}

}  // namespace kiln::layers
