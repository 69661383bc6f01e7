#include "kiln/layers/conv/base_conv.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::layers {

BaseConv::BaseConv(int rank, std::string_view what, ConvWindow window, LayerArgs args)
    : Layer(std::move(args)), rank_(rank), window_(std::move(window)) {
  std::string prefix(what);
  prefix += ' ';
  window_.kernel_size = per_axis(window_.kernel_size, rank, prefix + "kernel_size");
  window_.strides = per_axis(window_.strides, rank, prefix + "strides");
  window_.dilation_rate = per_axis(window_.dilation_rate, rank, prefix + "dilation_rate");
  const auto above_one = [](const std::vector<int64_t>& v) {
    return std::any_of(v.begin(), v.end(), [](int64_t x) { return x > 1; });
  };
  // Refused as Keras refuses it (TensorFlow's convolutions do not take the pair).
  KILN_CHECK(!(above_one(window_.strides) && above_one(window_.dilation_rate)), prefix,
             "strides > 1 are not supported together with dilation_rate > 1, got strides ",
             Shape(window_.strides), " and dilation_rate ", Shape(window_.dilation_rate));
  const bool causal = rank == 1 && window_.padding == "causal";
  if (!causal) ops::parse_padding(window_.padding);  // "valid" or "same", else an error
}

void BaseConv::build(const std::vector<Shape>& input_shapes) {
  const Shape& s = input_shapes.at(0);
  KILN_CHECK(s.rank() == rank_ + 2 && s.dim(-1) > 0, "expects inputs [batch, ", rank_,
             " spatial dims, channels] with known channels, got ", s);
  in_channels_ = s.dim(-1);
  const Shape shape = kernel_shape(in_channels_);
  kernel_ = add_weight("kernel", shape, window_.kernel_initializer.get(), true,
                       window_.kernel_regularizer, window_.kernel_constraint);
  // One bias per output channel: the kernel's size over its window and its in / groups inputs.
  int64_t out_channels = shape.numel() / (in_channels_ / groups(in_channels_));
  for (const int64_t k : window_.kernel_size) out_channels /= k;
  if (window_.use_bias)
    bias_ = add_weight("bias", {out_channels}, window_.bias_initializer.get(), true,
                       window_.bias_regularizer, window_.bias_constraint);
}

Tensor BaseConv::convolve(const Tensor& x, const Tensor& kernel, int64_t groups) const {
  if (rank_ == 2)
    return ops::conv2d(x, kernel, window_.strides, ops::parse_padding(window_.padding),
                       window_.dilation_rate, groups);
  if (window_.padding != "causal")
    return ops::conv1d(x, kernel, window_.strides[0], ops::parse_padding(window_.padding),
                       window_.dilation_rate[0], groups);
  // Causal: pad the start so step t sees only steps <= t, then slide without padding.
  const int64_t left = (window_.kernel_size[0] - 1) * window_.dilation_rate[0];
  return ops::conv1d(ops::pad(x, {{0, 0}, {left, 0}, {0, 0}}), kernel, window_.strides[0],
                     ops::Padding::valid, window_.dilation_rate[0], groups);
}

std::vector<Tensor> BaseConv::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == rank_ + 2 && x.dim(-1) == in_channels_, "was built for inputs with ",
             in_channels_, " channels and ", rank_, " spatial dims, got ", x.shape());
  const int64_t g = groups(in_channels_);
  // The op's layout: [window..., in / groups, out]; a Keras depthwise kernel
  // [window..., in, multiplier] is that layout for groups = in.
  std::vector<int64_t> dims = window_.kernel_size;
  dims.push_back(in_channels_ / g);
  dims.push_back(-1);
  Tensor y = convolve(x, ops::reshape(read(kernel_), Shape(std::move(dims))), g);
  if (window_.use_bias) y = y + read(bias_);
  return {window_.activation(y)};
}

}  // namespace kiln::layers
