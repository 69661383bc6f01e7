#pragma once
// keras.layers.MaxPooling1D/2D and AveragePooling1D/2D: the max or mean of each pool_size window,
// moved by strides (default: pool_size) over channels_last inputs. "same" padding averages only
// the positions inside the input, as TensorFlow does.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config_fields.h"
#include "kiln/layers/layer.h"

namespace kiln::layers {

struct PoolingOptions {
  std::vector<int64_t> strides = {};  // empty = pool_size
  std::string padding = "valid";      // "valid" or "same"
  KILN_LAYER_ARGS_FIELDS
};

class Pooling : public Layer {
 public:
  enum class Kind { max, average };

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  Config get_config() const override;

 protected:
  // `what` names the class in argument errors.
  Pooling(int rank, Kind kind, std::string_view what, std::vector<int64_t> pool_size,
          PoolingOptions options);
  // The options with pool_size (Keras's default 2 on every axis).
  struct Arguments : PoolingOptions {
    std::vector<int64_t> pool_size = {2};
  };
  static Arguments arguments_of(const Config& c, std::string_view class_name);

 private:
  static const FieldTable<Arguments>& fields();
  int rank_;
  Kind kind_;
  std::vector<int64_t> pool_size_;
  PoolingOptions options_;  // strides given per axis
};

class MaxPooling1D : public Pooling {
  KILN_LAYER_CLASS(MaxPooling1D)

 public:
  explicit MaxPooling1D(std::vector<int64_t> pool_size = {2}, PoolingOptions options = {})
      : Pooling(1, Kind::max, "MaxPooling1D", std::move(pool_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class MaxPooling2D : public Pooling {
  KILN_LAYER_CLASS(MaxPooling2D)

 public:
  explicit MaxPooling2D(std::vector<int64_t> pool_size = {2, 2}, PoolingOptions options = {})
      : Pooling(2, Kind::max, "MaxPooling2D", std::move(pool_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class AveragePooling1D : public Pooling {
  KILN_LAYER_CLASS(AveragePooling1D)

 public:
  explicit AveragePooling1D(std::vector<int64_t> pool_size = {2}, PoolingOptions options = {})
      : Pooling(1, Kind::average, "AveragePooling1D", std::move(pool_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class AveragePooling2D : public Pooling {
  KILN_LAYER_CLASS(AveragePooling2D)

 public:
  explicit AveragePooling2D(std::vector<int64_t> pool_size = {2, 2}, PoolingOptions options = {})
      : Pooling(2, Kind::average, "AveragePooling2D", std::move(pool_size), std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

}  // namespace kiln::layers
