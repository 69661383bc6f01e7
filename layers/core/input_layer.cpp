#include "kiln/layers/core/input_layer.h"

#include "kiln/framework/core/error.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

InputLayer::InputLayer(Shape batch_shape, DType dtype, std::string name)
    : Layer(LayerArgs{.name = std::move(name)}),
      batch_shape_(std::move(batch_shape)),
      dtype_(dtype) {
  build_from({batch_shape_});
}

std::vector<Tensor> InputLayer::call(const std::vector<Tensor>& inputs, const CallContext&) {
  return inputs;
}

std::vector<TensorMeta> InputLayer::compute_output_spec(const std::vector<TensorMeta>&) {
  // Where the model's layers build (a DeviceScope's device, else the CPU).
  return {{dtype_, batch_shape_, default_device()}};
}

Config InputLayer::get_config() const {
  return Config::map()
      .set("batch_shape", serialize_shape(batch_shape_))
      .set("dtype", std::string(dtype_name(dtype_)))
      .set("sparse", false)
      .set("name", name());
}

LayerPtr InputLayer::from_config(const Config& c) {
  c.check_keys(
      {"batch_shape", "batch_input_shape", "dtype", "sparse", "name", "ragged", "optional"},
      "InputLayer");
  // Keras writes these as false; true asks for inputs kiln does not have.
  for (const char* key : {"sparse", "ragged", "optional"})
    KILN_CHECK(!c.get_bool(key, false), c[key].where(), "InputLayer: '", key,
               "' inputs are not supported by kiln; leave it false");
  const Config& shape = c.contains("batch_shape") ? c["batch_shape"] : c["batch_input_shape"];
  return std::make_shared<InputLayer>(deserialize_shape(shape),
                                      dtype_from_name(c.get_string("dtype", "float32")),
                                      c.get_string("name", ""));
}

KerasTensor symbolic_input(std::shared_ptr<InputLayer> layer) {
  auto record = std::make_shared<CallRecord>();
  record->outputs = layer->compute_output_spec({});
  record->layer = std::move(layer);
  return KerasTensor(record->outputs[0], record, 0);
}

KerasTensor Input(const Shape& shape, DType dtype, const std::string& name, int64_t batch_size) {
  std::vector<int64_t> dims{batch_size};
  dims.insert(dims.end(), shape.begin(), shape.end());
  return symbolic_input(std::make_shared<InputLayer>(Shape(std::move(dims)), dtype, name));
}

}  // namespace kiln::layers
