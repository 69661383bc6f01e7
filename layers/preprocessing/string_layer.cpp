#include "kiln/layers/preprocessing/string_layer.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {
namespace {

void check_one_input(const StringLayer& layer, const std::vector<TensorMeta>& inputs) {
  KILN_CHECK(inputs.size() == 1, layer.class_name(), " '", layer.name(), "' takes one input");
  layer.check_input(inputs[0]);
}

}  // namespace

void StringLayer::check_input(const TensorMeta& input) const {
  KILN_SHAPE_CHECK(input.dtype == DType::string, class_name(), " '", name(),
                   "' reads strings, got ", dtype_name(input.dtype), input.shape);
}

std::vector<Tensor> StringLayer::call(const std::vector<Tensor>& inputs, const CallContext&) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) metas.push_back(t.meta());
  check_one_input(*this, metas);
  return {encode(inputs[0])};
}

std::vector<TensorMeta> StringLayer::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  check_one_input(*this, inputs);
  return {encoded_spec(inputs[0])};
}

}  // namespace kiln::layers
