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
  std::string activation;
  bool use_bias = true;
  std::string kernel_initializer;
  std::string bias_initializer;
  regularizers::RegularizerPtr kernel_regularizer;
  regularizers::RegularizerPtr bias_regularizer;
};

// The window from a subclass's options struct, whose shared fields have Keras's names; the
// kernel's initializer and regularizer are named per subclass (kernel_*, depthwise_*).
template <typename Options>
ConvWindow conv_window(std::vector<int64_t> kernel_size, const Options& o,
                       std::string kernel_initializer,
                       regularizers::RegularizerPtr kernel_regularizer) {
  return {std::move(kernel_size),
          o.strides,
          o.padding,
          o.dilation_rate,
          o.activation,
          o.use_bias,
          std::move(kernel_initializer),
          o.bias_initializer,
          std::move(kernel_regularizer),
          o.bias_regularizer};
}

// Rejects what kiln's convolutions do not implement: channels_first, constraints and activity
// regularizers (`kernel_prefix` is "kernel" or "depthwise").
void require_supported_conv_args(const Config& c, std::string_view kernel_prefix,
                                 std::string_view class_name);

// Reads the shared fields of a subclass's options struct (and the base layer arguments).
template <typename Options>
void read_conv_options(const Config& c, std::string_view kernel_prefix, std::string_view class_name,
                       Options& o) {
  require_supported_conv_args(c, kernel_prefix, class_name);
  o.strides = int_list_or(c, "strides", o.strides);
  o.padding = c.get_string("padding", o.padding);
  o.dilation_rate = int_list_or(c, "dilation_rate", o.dilation_rate);
  o.activation = c.get_string("activation", o.activation);
  o.use_bias = c.get_bool("use_bias", o.use_bias);
  o.bias_initializer = initializer_name(c, "bias_initializer", o.bias_initializer);
  o.bias_regularizer = regularizer_of(c, "bias_regularizer");
  read_layer_args(c, o);
}

class BaseConv : public Layer {
 public:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  // The shared keys and the kernel's initializer and regularizer; subclasses add theirs.
  Config get_config() const override;

  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }

 protected:
  // `what` names the class in argument errors (a constructor cannot ask class_name());
  // `kernel_prefix` names the kernel's config keys ("kernel" or "depthwise").
  BaseConv(int rank, std::string_view what, std::string kernel_prefix, ConvWindow window,
           LayerArgs args);
  const ConvWindow& window() const { return window_; }

  // The kernel's shape as Keras stores it, and the groups of the conv op, for `in` channels.
  virtual Shape kernel_shape(int64_t in_channels) const = 0;
  virtual int64_t groups(int64_t in_channels) const = 0;

 private:
  Tensor convolve(const Tensor& x, const Tensor& kernel, int64_t groups) const;

  int rank_;
  std::string kernel_prefix_;
  ConvWindow window_;
  activations::Activation activation_;
  int64_t in_channels_ = -1;
  Variable kernel_;
  Variable bias_;
};

}  // namespace kiln::layers
