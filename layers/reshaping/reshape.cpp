#include "kiln/layers/reshaping/reshape.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Reshape::Reshape(Shape target_shape, ReshapeOptions options)
    : Layer(options.layer_args()), target_(std::move(target_shape)) {
  int unknown = 0;
  for (const int64_t d : target_) unknown += d < 0;
  KILN_CHECK(unknown <= 1, "Reshape: at most one dim of target_shape may be -1, got ", target_);
}

std::vector<Tensor> Reshape::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Shape& s = inputs[0].shape();
  int64_t sample = 1;
  for (int i = 1; i < s.rank(); ++i) {
    KILN_CHECK(s[i] >= 0, "layer '", name(), "' (Reshape) needs known non-batch dims, got ", s);
    sample *= s[i];
  }
  // The batch dim stays free (-1), so a target -1 is resolved here from the sample size.
  int64_t known = 1;
  for (const int64_t d : target_) known *= d < 0 ? 1 : d;
  std::vector<int64_t> dims{-1};
  for (const int64_t d : target_) {
    KILN_CHECK(d >= 0 || sample % known == 0, "layer '", name(), "' (Reshape): cannot reshape ", s,
               " to [batch] + ", target_);
    dims.push_back(d < 0 ? sample / known : d);
  }
  KILN_CHECK(sample == Shape(std::vector<int64_t>(dims.begin() + 1, dims.end())).numel(), "layer '",
             name(), "' (Reshape): cannot reshape samples of ", s, " to ", target_);
  return {ops::reshape(inputs[0], Shape(std::move(dims)))};
}

namespace {

// The base arguments with the required target_shape.
struct Arguments : ReshapeOptions {
  std::vector<int64_t> target_shape;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table{
      required(field("target_shape", &Arguments::target_shape))};
  return table;
}

}  // namespace

Config Reshape::get_config() const {
  return write_fields(Arguments{{}, target_.dims()}, fields(), Layer::get_config());
}

LayerPtr Reshape::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Reshape");
  return std::make_shared<Reshape>(Shape(a.target_shape), a);
}

}  // namespace kiln::layers
