// A custom layer, a custom loss and a custom activation, each registered by name with one line
// and then used exactly like the built-ins: by name in compile and in layer arguments, and
// through the layer registry when a model is rebuilt from its config (as YAML runs and
// checkpoints do).
#include <cstdio>

#include "apps/examples/example_support.h"
#include "engine/model/sequential.h"
#include "framework/ops/ops.h"
#include "layers/activations/activations.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/layer_config.h"
#include "layers/registry.h"
#include "layers/reshaping/flatten.h"
#include "losses/registry.h"

using namespace kiln;

namespace {

// Squareplus (So, 2022): a smooth ReLU needing only a square root, (x + sqrt(x^2 + b)) / 2.
Tensor squareplus(const Tensor& x) {
  return (x + ops::sqrt(ops::square(x) + 4.0)) * 0.5;
}

// Focal loss (Lin et al., 2017) on integer labels and logits: crossentropy scaled by
// (1 - p_true)^gamma, so well-classified samples count less.
Tensor sparse_focal_crossentropy(const Tensor& labels, const Tensor& logits) {
  constexpr double kGamma = 2.0;
  const Tensor log_p = ops::sum(
      ops::log_softmax(logits) * ops::one_hot(ops::cast(labels, DType::i64), logits.dim(-1)), {-1});
  return -ops::pow(1.0 - ops::exp(log_p), kGamma) * log_p;
}

// x + activation(x W + b): a dense block with a skip connection, its width that of its input.
class ResidualDense : public layers::Layer {
  KILN_LAYER_CLASS(ResidualDense)

 public:
  explicit ResidualDense(std::string activation = "relu", layers::LayerArgs args = {})
      : Layer(std::move(args)),
        activation_name_(std::move(activation)),
        activation_(activations::get(activation_name_)) {}

  static layers::LayerPtr from_config(const Config& config) {
    layers::check_layer_keys(config, {"activation"}, "ResidualDense");
    return std::make_shared<ResidualDense>(config.get_string("activation", "relu"),
                                           layers::layer_args_of(config));
  }

  void build(const std::vector<Shape>& shapes) override {
    const int64_t width = shapes[0].dim(-1);
    kernel_ = add_weight("kernel", {width, width}, initializers::he_normal());
    bias_ = add_weight("bias", {width}, initializers::zeros());
  }

  std::vector<Tensor> call(const std::vector<Tensor>& in, const layers::CallContext&) override {
    return {in[0] + activation_(ops::matmul(in[0], read(kernel_)) + read(bias_))};
  }

  Config get_config() const override {
    return Layer::get_config().set("activation", Config(activation_name_));
  }

 private:
  std::string activation_name_;
  activations::Activation activation_;
  Variable kernel_;
  Variable bias_;
};

}  // namespace

int main(int argc, char** argv) {
  // The one line each.
  activations::register_activation("squareplus", squareplus);
  losses::register_loss("sparse_focal_crossentropy", sparse_focal_crossentropy);
  layers::register_layer("ResidualDense", ResidualDense::from_config);

  return examples::run_example(argc, argv, {}, [](const examples::ExampleOptions& o) {
    const datasets::FashionMnist data = examples::load_data(o);
    Sequential model({layers::Input({28, 28}), layers::Flatten(),
                      layers::Dense(256, {.activation = "squareplus"}), ResidualDense("squareplus"),
                      layers::Dense(10)});
    std::printf("%s", model.summary().c_str());

    // Rebuilt from its config, the model finds ResidualDense and squareplus by name.
    const layers::LayerPtr rebuilt = layers::deserialize_layer(layers::serialize_layer(model));
    std::printf("rebuilt from config: %s with %lld parameters\n", rebuilt->name().c_str(),
                static_cast<long long>(rebuilt->count_params()));

    CompileOptions options = examples::classifier_options(o);
    options.loss = "sparse_focal_crossentropy";
    model.compile(std::move(options));
    return examples::fit_and_report(model, {data.train.images}, data.train.labels,
                                    {data.test.images}, data.test.labels, o);
  });
}
