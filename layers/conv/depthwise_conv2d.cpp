#include "kiln/layers/conv/depthwise_conv2d.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

DepthwiseConv2D::DepthwiseConv2D(std::vector<int64_t> kernel_size, DepthwiseConv2DOptions options)
    : BaseConv(2, "DepthwiseConv2D", "depthwise",
               conv_window(std::move(kernel_size), options, options.depthwise_initializer,
                           options.depthwise_regularizer),
               options.layer_args()),
      depth_multiplier_(options.depth_multiplier) {
  KILN_CHECK(depth_multiplier_ > 0, "DepthwiseConv2D: depth_multiplier must be positive, got ",
             depth_multiplier_);
}

Shape DepthwiseConv2D::kernel_shape(int64_t in_channels) const {
  const std::vector<int64_t>& k = window().kernel_size;
  return {k[0], k[1], in_channels, depth_multiplier_};
}

Config DepthwiseConv2D::get_config() const {
  return BaseConv::get_config().set("depth_multiplier", depth_multiplier_);
}

LayerPtr DepthwiseConv2D::from_config(const Config& c) {
  check_layer_keys(c,
                   {"depth_multiplier", "kernel_size", "strides", "padding", "data_format",
                    "dilation_rate", "activation", "use_bias", "depthwise_initializer",
                    "bias_initializer", "depthwise_regularizer", "bias_regularizer",
                    "activity_regularizer", "depthwise_constraint", "bias_constraint"},
                   "DepthwiseConv2D");
  DepthwiseConv2DOptions o;
  read_conv_options(c, "depthwise", "DepthwiseConv2D", o);
  o.depth_multiplier = c.get_int("depth_multiplier", o.depth_multiplier);
  o.depthwise_initializer = initializer_name(c, "depthwise_initializer", o.depthwise_initializer);
  o.depthwise_regularizer = regularizer_of(c, "depthwise_regularizer");
  return std::make_shared<DepthwiseConv2D>(c["kernel_size"].as_int_list(), std::move(o));
}

}  // namespace kiln::layers
