#pragma once
// keras.Input and its InputLayer: where a functional model's symbolic batches start.
#include <memory>
#include <string>

#include "kiln/layers/keras_tensor.h"
#include "kiln/layers/layer.h"

namespace kiln::layers {

class InputLayer : public Layer {
  KILN_LAYER_CLASS(InputLayer)

 public:
  // batch_shape includes the batch dim (-1 = unknown).
  InputLayer(Shape batch_shape, DType dtype, std::string name = "");
  static LayerPtr from_config(const Config& config);

  const Shape& batch_shape() const { return batch_shape_; }
  DType input_dtype() const { return dtype_; }
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<TensorMeta> compute_output_spec(const std::vector<TensorMeta>& inputs) override;
  Config get_config() const override;  // {"batch_shape", "dtype", "sparse", "name"}

 private:
  Shape batch_shape_;
  DType dtype_;
};

// The symbolic batch an InputLayer produces: where a functional model's graph starts.
KerasTensor symbolic_input(std::shared_ptr<InputLayer> layer);

// A symbolic batch of `shape` (without the batch dim), like keras.Input(shape=...).
KerasTensor Input(const Shape& shape, DType dtype = DType::f32, const std::string& name = "",
                  int64_t batch_size = -1);

}  // namespace kiln::layers
