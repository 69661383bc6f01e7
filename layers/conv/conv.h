#pragma once
// keras.layers.Conv1D and Conv2D: `filters` kernels of kernel_size slid over [batch, steps,
// channels] or [batch, rows, cols, channels]; kernel [kernel_size..., channels / groups,
// filters], bias [filters].
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/layers/conv/base_conv.h"

namespace kiln::layers {

struct ConvOptions {
  std::vector<int64_t> strides = {1};  // one value for every axis, or one per axis
  std::string padding = "valid";       // "valid", "same"; Conv1D also "causal"
  std::vector<int64_t> dilation_rate = {1};
  int64_t groups = 1;
  activations::ActivationArg activation = "linear";
  bool use_bias = true;
  initializers::InitializerArg kernel_initializer = "glorot_uniform";
  initializers::InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_ARGS_FIELDS
};

// Conv1D and Conv2D differ only in rank.
class Conv : public BaseConv {
 public:
  Config get_config() const override;
  int64_t filters() const { return filters_; }

 protected:
  Conv(int rank, std::string_view what, int64_t filters, std::vector<int64_t> kernel_size,
       ConvOptions options);
  Shape kernel_shape(int64_t in_channels) const override;
  int64_t groups(int64_t in_channels) const override;
  // The options with the required filters and kernel_size.
  struct Arguments : ConvOptions {
    int64_t filters = 0;
    std::vector<int64_t> kernel_size;
  };
  static Arguments arguments_of(const Config& c, std::string_view class_name);

 private:
  static const FieldTable<Arguments>& fields();
  int64_t filters_;
  ConvOptions options_;
};

class Conv1D : public Conv {
  KILN_LAYER_CLASS(Conv1D)

 public:
  Conv1D(int64_t filters, std::vector<int64_t> kernel_size, ConvOptions options = {})
      : Conv(1, "Conv1D", filters, std::move(kernel_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class Conv2D : public Conv {
  KILN_LAYER_CLASS(Conv2D)

 public:
  Conv2D(int64_t filters, std::vector<int64_t> kernel_size, ConvOptions options = {})
      : Conv(2, "Conv2D", filters, std::move(kernel_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

}  // namespace kiln::layers
