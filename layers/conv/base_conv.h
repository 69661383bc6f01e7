#pragma once
// What Keras's convolutions share (Conv1D, Conv2D, DepthwiseConv2D): a window (kernel_size,
// strides, padding, dilation_rate) slid over channels_last inputs, a kernel whose shape each
// subclass chooses, an optional bias and an activation. Every kernel runs as the grouped conv op
// with the [window..., in / groups, out] layout.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/layers/activations/activations.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/regularizers/regularizers.h"
#include "kiln/layers/spatial_args.h"

namespace kiln::layers {

struct ConvWindow {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> strides;
  std::string padding;  // "valid", "same"; "causal" for rank 1
  std::vector<int64_t> dilation_rate;
  activations::ActivationArg activation = "linear";
  bool use_bias = true;
  initializers::InitializerArg kernel_initializer = "glorot_uniform";
  initializers::InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer;
  regularizers::RegularizerPtr bias_regularizer;
  constraints::ConstraintPtr kernel_constraint;
  constraints::ConstraintPtr bias_constraint;
};

// The window from a subclass's options struct, whose shared fields have Keras's names; the
// kernel's initializer, regularizer and constraint are named per subclass (kernel_*,
// depthwise_*).
template <typename Options>
ConvWindow conv_window(std::vector<int64_t> kernel_size, const Options& o,
                       initializers::InitializerArg kernel_initializer,
                       regularizers::RegularizerPtr kernel_regularizer,
                       constraints::ConstraintPtr kernel_constraint) {
  return {std::move(kernel_size),
          o.strides,
          o.padding,
          o.dilation_rate,
          o.activation,
          o.use_bias,
          std::move(kernel_initializer),
          o.bias_initializer,
          std::move(kernel_regularizer),
          o.bias_regularizer,
          std::move(kernel_constraint),
          o.bias_constraint};
}

// The keys every convolution shares, for a subclass's options struct whose shared fields have
// Keras's names; the kernel's initializer, regularizer and constraint are named per subclass
// (`kernel` is "kernel" or "depthwise"). kernel_size, a required argument, is each subclass's.
template <typename Options>
FieldTable<Options> conv_fields(const std::string& kernel,
                                initializers::InitializerArg Options::*kernel_initializer,
                                regularizers::RegularizerPtr Options::*kernel_regularizer,
                                constraints::ConstraintPtr Options::*kernel_constraint) {
  return {field("strides", &Options::strides),
          field("padding", &Options::padding),
          channels_last_field<Options>(),
          field("dilation_rate", &Options::dilation_rate),
          activation_field("activation", &Options::activation),
          field("use_bias", &Options::use_bias),
          initializer_field(kernel + "_initializer", kernel_initializer),
          initializer_field("bias_initializer", &Options::bias_initializer),
          regularizer_field(kernel + "_regularizer", kernel_regularizer),
          regularizer_field("bias_regularizer", &Options::bias_regularizer),
          activity_regularizer_field<Options>(),
          constraint_field(kernel + "_constraint", kernel_constraint),
          constraint_field("bias_constraint", &Options::bias_constraint)};
}

class BaseConv : public Layer {
 public:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;

  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }

 protected:
  // `what` names the class in argument errors (a constructor cannot ask class_name());
  BaseConv(int rank, std::string_view what, ConvWindow window, LayerArgs args);
  const ConvWindow& window() const { return window_; }

  // The kernel's shape as Keras stores it, and the groups of the conv op, for `in` channels.
  virtual Shape kernel_shape(int64_t in_channels) const = 0;
  virtual int64_t groups(int64_t in_channels) const = 0;

 private:
  Tensor convolve(const Tensor& x, const Tensor& kernel, int64_t groups) const;

  int rank_;
  ConvWindow window_;
  int64_t in_channels_ = -1;
  Variable kernel_;
  Variable bias_;
};

}  // namespace kiln::layers
