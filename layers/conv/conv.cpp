#include "kiln/layers/conv/conv.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

Conv::Conv(int rank, std::string_view what, int64_t filters, std::vector<int64_t> kernel_size,
           ConvOptions options)
    : BaseConv(rank, what,
               conv_window(std::move(kernel_size), options, options.kernel_initializer,
                           options.kernel_regularizer, options.kernel_constraint),
               options.layer_args()),
      filters_(filters),
      options_(std::move(options)) {
  // Written back as Keras writes them, one value per axis.
  options_.strides = window().strides;
  options_.dilation_rate = window().dilation_rate;
  KILN_CHECK(filters > 0, what, ": filters must be positive, got ", filters);
  KILN_CHECK(options_.groups > 0 && filters % options_.groups == 0, what, ": filters (", filters,
             ") must be a positive multiple of groups (", options_.groups, ")");
}

Shape Conv::kernel_shape(int64_t in_channels) const {
  KILN_CHECK(in_channels % options_.groups == 0, "input channels (", in_channels,
             ") must be a multiple of groups (", options_.groups, ")");
  std::vector<int64_t> dims = window().kernel_size;
  dims.push_back(in_channels / options_.groups);
  dims.push_back(filters_);
  return Shape(std::move(dims));
}

int64_t Conv::groups(int64_t) const {
  return options_.groups;
}

const FieldTable<Conv::Arguments>& Conv::fields() {
  static const FieldTable<Arguments> table = [] {
    FieldTable<ConvOptions> options =
        conv_fields("kernel", &ConvOptions::kernel_initializer, &ConvOptions::kernel_regularizer,
                    &ConvOptions::kernel_constraint);
    options.push_back(field("groups", &ConvOptions::groups));
    return with_options<Arguments>({required(field("filters", &Arguments::filters)),
                                    required(field("kernel_size", &Arguments::kernel_size))},
                                   options);
  }();
  return table;
}

Config Conv::get_config() const {
  return write_fields(Arguments{options_, filters_, window().kernel_size}, fields(),
                      Layer::get_config());
}

Conv::Arguments Conv::arguments_of(const Config& c, std::string_view class_name) {
  return read_layer_fields(c, fields(), class_name);
}

LayerPtr Conv1D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "Conv1D");
  return std::make_shared<Conv1D>(a.filters, a.kernel_size, a);
}

LayerPtr Conv2D::from_config(const Config& c) {
  const Arguments a = arguments_of(c, "Conv2D");
  return std::make_shared<Conv2D>(a.filters, a.kernel_size, a);
}

}  // namespace kiln::layers
