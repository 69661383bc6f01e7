#pragma once
// keras.layers.Lambda: a tensor function as a layer, for small stateless steps between layers.
// A C++ function has no serializable form, so a Lambda saves (get_config, model configs, YAML)
// only when it names a function registered once with
//   kiln::layers::register_lambda("double", [](const Tensor& x) { return x * 2.0; });
// and is built as Lambda("double"); a Lambda over an unnamed function works but cannot be saved.
#include <functional>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

using LambdaFunction = std::function<Tensor(const Tensor&)>;

// Registering a name twice is an error.
void register_lambda(const std::string& name, LambdaFunction fn);
bool is_registered_lambda(const std::string& name);

struct LambdaOptions {
  KILN_LAYER_ARGS_FIELDS
};

class Lambda : public Layer {
  KILN_LAYER_CLASS(Lambda)

 public:
  // An unnamed function: not serializable.
  explicit Lambda(LambdaFunction fn, LambdaOptions options = {});
  // A function registered with register_lambda, saved by its name.
  explicit Lambda(const std::string& registered_name, LambdaOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 private:
  LambdaFunction fn_;
  std::string registered_name_;  // "" for an unnamed function
};

}  // namespace kiln::layers
