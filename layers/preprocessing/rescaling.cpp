#include "kiln/layers/preprocessing/rescaling.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

// A scalar for one value, else a vector along the last axis.
Tensor factor(const std::vector<double>& values, DType dtype, const Device& device) {
  if (values.size() == 1) return full({}, values[0], dtype, device);
  return from_vector(values, {static_cast<int64_t>(values.size())}, dtype, device);
}

// A number or a list of numbers, as Keras writes either.
std::vector<double> numbers(const Config& c) {
  return c.is_list() ? c.as_double_list() : std::vector<double>{c.as_double()};
}

Config to_config(const std::vector<double>& values) {
  return values.size() == 1 ? Config(values[0]) : Config(values);
}

}  // namespace

Rescaling::Rescaling(std::vector<double> scale, std::vector<double> offset,
                     RescalingOptions options)
    : Layer(options.layer_args()), scale_(std::move(scale)), offset_(std::move(offset)) {
  KILN_CHECK(!scale_.empty() && !offset_.empty(), "Rescaling: scale and offset need a value");
  supports_masking_ = true;
}

Rescaling::Rescaling(double scale, double offset, RescalingOptions options)
    : Rescaling(std::vector<double>{scale}, std::vector<double>{offset}, std::move(options)) {}

std::vector<Tensor> Rescaling::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const DType dtype = dtype_policy().compute;  // integer inputs (uint8 images) too
  const Tensor x = ops::cast(inputs[0], dtype);
  for (const std::vector<double>* v : {&scale_, &offset_})
    KILN_CHECK(v->size() == 1 || (x.rank() > 0 && x.dim(-1) == static_cast<int64_t>(v->size())),
               "Rescaling: ", v->size(), " values along the last axis of an input ", x.shape());
  return {x * factor(scale_, dtype, x.device()) + factor(offset_, dtype, x.device())};
}

Config Rescaling::get_config() const {
  return Layer::get_config().set("scale", to_config(scale_)).set("offset", to_config(offset_));
}

LayerPtr Rescaling::from_config(const Config& c) {
  KILN_CHECK(c.contains("scale"), c.where(), "Rescaling needs a scale");
  return std::make_shared<Rescaling>(
      numbers(c["scale"]), c.contains("offset") ? numbers(c["offset"]) : std::vector<double>{0.0},
      read_layer_fields<RescalingOptions>(c, "Rescaling", {"scale", "offset"}));
}

}  // namespace kiln::layers
