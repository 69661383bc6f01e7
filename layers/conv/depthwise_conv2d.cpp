#include "kiln/layers/conv/depthwise_conv2d.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

DepthwiseConv2D::DepthwiseConv2D(std::vector<int64_t> kernel_size, DepthwiseConv2DOptions options)
    : BaseConv(2, "DepthwiseConv2D",
               conv_window(std::move(kernel_size), options, options.depthwise_initializer,
                           options.depthwise_regularizer, options.depthwise_constraint),
               options.layer_args()),
      options_(std::move(options)) {
  // Written back as Keras writes them, one value per axis.
  options_.strides = window().strides;
  options_.dilation_rate = window().dilation_rate;
  KILN_CHECK(options_.depth_multiplier > 0,
             "DepthwiseConv2D: depth_multiplier must be positive, got ", options_.depth_multiplier);
}

Shape DepthwiseConv2D::kernel_shape(int64_t in_channels) const {
  const std::vector<int64_t>& k = window().kernel_size;
  return {k[0], k[1], in_channels, options_.depth_multiplier};
}

namespace {

using Options = DepthwiseConv2DOptions;

// The options with the required kernel_size.
struct Arguments : Options {
  std::vector<int64_t> kernel_size;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = [] {
    FieldTable<Options> options =
        conv_fields("depthwise", &Options::depthwise_initializer, &Options::depthwise_regularizer,
                    &Options::depthwise_constraint);
    options.push_back(field("depth_multiplier", &Options::depth_multiplier));
    return with_options<Arguments>({required(field("kernel_size", &Arguments::kernel_size))},
                                   options);
  }();
  return table;
}

}  // namespace

Config DepthwiseConv2D::get_config() const {
  return write_fields(Arguments{options_, window().kernel_size}, fields(), Layer::get_config());
}

LayerPtr DepthwiseConv2D::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "DepthwiseConv2D");
  return std::make_shared<DepthwiseConv2D>(a.kernel_size, a);
}

}  // namespace kiln::layers
