#pragma once
// keras.layers.DepthwiseConv2D: each input channel convolved with its own depth_multiplier
// kernels; kernel [kh, kw, channels, depth_multiplier] (Keras's layout), bias
// [channels * depth_multiplier]. Runs as a conv with one group per input channel.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/layers/conv/base_conv.h"

namespace kiln::layers {

struct DepthwiseConv2DOptions {
  int64_t depth_multiplier = 1;
  std::vector<int64_t> strides = {1};
  std::string padding = "valid";  // "valid" or "same"
  std::vector<int64_t> dilation_rate = {1};
  activations::ActivationArg activation = "linear";
  bool use_bias = true;
  initializers::InitializerArg depthwise_initializer = "glorot_uniform";
  initializers::InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr depthwise_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr depthwise_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_ARGS_FIELDS
};

class DepthwiseConv2D : public BaseConv {
  KILN_LAYER_CLASS(DepthwiseConv2D)

 public:
  explicit DepthwiseConv2D(std::vector<int64_t> kernel_size, DepthwiseConv2DOptions options = {});
  static LayerPtr from_config(const Config& config);
  Config get_config() const override;

 protected:
  Shape kernel_shape(int64_t in_channels) const override;
  int64_t groups(int64_t in_channels) const override { return in_channels; }

 private:
  DepthwiseConv2DOptions options_;
};

}  // namespace kiln::layers
