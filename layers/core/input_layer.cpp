#include "layers/core/input_layer.h"

#include "framework/core/error.h"

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
  return {{dtype_, batch_shape_, Device::cpu()}};
}

Config InputLayer::get_config() const {
  std::vector<Config> dims;
  for (const int64_t d : batch_shape_) dims.emplace_back(d < 0 ? Config() : Config(d));
  return Config::map()
      .set("batch_shape", Config(std::move(dims)))
      .set("dtype", std::string(dtype_name(dtype_)))
      .set("sparse", false)
      .set("name", name());
}

LayerPtr InputLayer::from_config(const Config& c) {
  c.check_keys({"batch_shape", "batch_input_shape", "dtype", "sparse", "name", "ragged"},
               "InputLayer");
  const Config& shape = c.contains("batch_shape") ? c["batch_shape"] : c["batch_input_shape"];
  std::vector<int64_t> dims;
  for (const Config& d : shape.as_list()) dims.push_back(d.is_null() ? -1 : d.as_int());
  return std::make_shared<InputLayer>(Shape(std::move(dims)),
                                      dtype_from_name(c.get_string("dtype", "float32")),
                                      c.get_string("name", ""));
}

KerasTensor Input(const Shape& shape, DType dtype, const std::string& name, int64_t batch_size) {
  std::vector<int64_t> dims{batch_size};
  dims.insert(dims.end(), shape.begin(), shape.end());
  auto layer = std::make_shared<InputLayer>(Shape(std::move(dims)), dtype, name);
  auto record = std::make_shared<CallRecord>();
  record->outputs = layer->compute_output_spec({});
  record->layer = std::move(layer);
  return KerasTensor(record->outputs[0], record, 0);
}

}  // namespace kiln::layers
