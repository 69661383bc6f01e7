#include "kiln/layers/preprocessing/string_layer.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {
namespace {

// What the layer accepts besides strings: what it makes itself (its output dtype).
void check_encoded(const StringLayer& layer, const TensorMeta& input) {
  const DType made = layer.encoded_spec({DType::string, Shape{-1}, Device::cpu()}).dtype;
  KILN_SHAPE_CHECK(input.dtype == made, layer.class_name(), " '", layer.name(),
                   "' reads strings, got ", dtype_name(input.dtype), input.shape);
}

}  // namespace

std::vector<Tensor> StringLayer::call(const std::vector<Tensor>& inputs, const CallContext&) {
  KILN_CHECK(inputs.size() == 1, class_name(), " '", name(), "' takes one input");
  if (inputs[0].dtype() != DType::string) {
    check_encoded(*this, inputs[0].meta());
    return inputs;
  }
  return {encode(inputs[0])};
}

std::vector<TensorMeta> StringLayer::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  KILN_CHECK(inputs.size() == 1, class_name(), " '", name(), "' takes one input");
  if (inputs[0].dtype != DType::string) {
    check_encoded(*this, inputs[0]);
    return inputs;
  }
  return {encoded_spec(inputs[0])};
}

}  // namespace kiln::layers
