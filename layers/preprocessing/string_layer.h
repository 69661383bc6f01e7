#pragma once
// A layer that reads strings (TextVectorization, StringLookup). Strings have no kernels, so it
// runs on the host, eagerly, outside the traced steps: a model feeds each of its string inputs
// through the one such layer that reads it before each step (Model::encode_string_inputs), and
// the steps start after it, from what it made. Anything but strings is refused (an inverting
// StringLookup, which reads indices and writes strings, runs on its own, eagerly).
#include "kiln/layers/layer.h"

namespace kiln::layers {

class StringLayer : public Layer {
 public:
  using Layer::Layer;

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) final;
  std::vector<TensorMeta> compute_output_spec(const std::vector<TensorMeta>& inputs) final;

  // The layer's output for a CPU string tensor.
  virtual Tensor encode(const Tensor& strings) const = 0;
  // Refuses an input the layer does not read (by default, anything but strings).
  virtual void check_input(const TensorMeta& input) const;
  // The spec of encode's output for strings of `input`'s spec (dims may be unknown).
  virtual TensorMeta encoded_spec(const TensorMeta& input) const = 0;
};

}  // namespace kiln::layers
