#include "kiln/layers/preprocessing/string_layer.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {
namespace {

void check_strings(const StringLayer& layer, const std::vector<TensorMeta>& inputs) {
  KILN_CHECK(inputs.size() == 1, layer.class_name(), " '", layer.name(), "' takes one input");
  KILN_SHAPE_CHECK(inputs[0].dtype == DType::string, layer.class_name(), " '", layer.name(),
                   "' reads strings, got ", dtype_name(inputs[0].dtype), inputs[0].shape);
}

}  // namespace

std::vector<Tensor> StringLayer::call(const std::vector<Tensor>& inputs, const CallContext&) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) metas.push_back(t.meta());
  check_strings(*this, metas);
  return {encode(inputs[0])};
}

std::vector<TensorMeta> StringLayer::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  check_strings(*this, inputs);
  return {encoded_spec(inputs[0])};
}

}  // namespace kiln::layers
