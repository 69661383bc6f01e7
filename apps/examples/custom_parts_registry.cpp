#include "apps/examples/custom_parts.h"

#include <mutex>

#include "kiln/framework/ops/ops.h"
#include "kiln/layers/activations/activations.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/registry.h"
#include "kiln/losses/registry.h"

namespace kiln::examples {
namespace {

Tensor squareplus(const Tensor& x) {
  return (x + ops::sqrt(ops::square(x) + 4.0)) * 0.5;
}

// Integer labels and logits; gamma = 2.
Tensor sparse_focal_crossentropy(const Tensor& labels, const Tensor& logits) {
  constexpr double kGamma = 2.0;
  const Tensor log_p = ops::sum(
      ops::log_softmax(logits) * ops::one_hot(ops::cast(labels, DType::i64), logits.dim(-1)), {-1});
  return -ops::pow(1.0 - ops::exp(log_p), kGamma) * log_p;
}

}  // namespace

void register_custom_parts() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The one line each.
    activations::register_activation("squareplus", squareplus);
    losses::register_loss("sparse_focal_crossentropy", sparse_focal_crossentropy);
    layers::register_layer("ResidualDense", ResidualDense::from_config);
  });
}

ResidualDense::ResidualDense(std::string activation, layers::LayerArgs args)
    : Layer(std::move(args)), activation_name_(std::move(activation)) {
  activations::get(activation_name_);  // an unknown name fails here, not at the first call
}

layers::LayerPtr ResidualDense::from_config(const Config& config) {
  return std::make_shared<ResidualDense>(
      config.get_string("activation", "relu"),
      layers::read_layer_fields<layers::LayerArgs>(config, "ResidualDense", {"activation"}));
}

void ResidualDense::build(const std::vector<Shape>& shapes) {
  const int64_t width = shapes[0].dim(-1);
  kernel_ = add_weight("kernel", {width, width}, initializers::he_normal());
  bias_ = add_weight("bias", {width}, initializers::zeros());
}

std::vector<Tensor> ResidualDense::call(const std::vector<Tensor>& in, const layers::CallContext&) {
  const activations::Activation activation = activations::get(activation_name_);
  return {in[0] + activation(ops::matmul(in[0], read(kernel_)) + read(bias_))};
}

Config ResidualDense::get_config() const {
  return Layer::get_config().set("activation", Config(activation_name_));
}

}  // namespace kiln::examples
