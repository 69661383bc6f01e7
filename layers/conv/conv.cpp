#include "kiln/layers/conv/conv.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

Conv::Conv(int rank, std::string_view what, int64_t filters, std::vector<int64_t> kernel_size,
           ConvOptions options)
    : BaseConv(rank, what, "kernel",
               conv_window(std::move(kernel_size), options, options.kernel_initializer,
                           options.kernel_regularizer),
               options.layer_args()),
      filters_(filters),
      groups_(options.groups) {
  KILN_CHECK(filters > 0, what, ": filters must be positive, got ", filters);
  KILN_CHECK(groups_ > 0 && filters % groups_ == 0, what, ": filters (", filters,
             ") must be a positive multiple of groups (", groups_, ")");
}

Shape Conv::kernel_shape(int64_t in_channels) const {
  KILN_CHECK(in_channels % groups_ == 0, "input channels (", in_channels,
             ") must be a multiple of groups (", groups_, ")");
  std::vector<int64_t> dims = window().kernel_size;
  dims.push_back(in_channels / groups_);
  dims.push_back(filters_);
  return Shape(std::move(dims));
}

int64_t Conv::groups(int64_t) const {
  return groups_;
}

Config Conv::get_config() const {
  return BaseConv::get_config().set("filters", filters_).set("groups", groups_);
}

std::tuple<int64_t, std::vector<int64_t>, ConvOptions> Conv::arguments_of(
    const Config& c, std::string_view class_name) {
  check_layer_keys(
      c,
      {"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "groups",
       "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
       "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"},
      class_name);
  ConvOptions o;
  read_conv_options(c, "kernel", class_name, o);
  o.groups = c.get_int("groups", o.groups);
  o.kernel_initializer = initializer_name(c, "kernel_initializer", o.kernel_initializer);
  o.kernel_regularizer = regularizer_of(c, "kernel_regularizer");
  return {c["filters"].as_int(), c["kernel_size"].as_int_list(), std::move(o)};
}

LayerPtr Conv1D::from_config(const Config& c) {
  auto [filters, kernel_size, options] = arguments_of(c, "Conv1D");
  return std::make_shared<Conv1D>(filters, std::move(kernel_size), std::move(options));
}

LayerPtr Conv2D::from_config(const Config& c) {
  auto [filters, kernel_size, options] = arguments_of(c, "Conv2D");
  return std::make_shared<Conv2D>(filters, std::move(kernel_size), std::move(options));
}

}  // namespace kiln::layers
