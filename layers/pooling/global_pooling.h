#pragma once
// keras.layers.GlobalAveragePooling1D/2D and GlobalMaxPooling1D/2D: the mean or max over every
// spatial axis of a channels_last input, [batch, ..., channels] -> [batch, channels] (or size-1
// spatial axes with keepdims). With a [batch, steps] mask, the 1D layers pool only the unmasked
// steps; their output has no mask.
#include <cstdint>
#include <string_view>
#include <vector>

#include "kiln/layers/layer.h"

namespace kiln::layers {

struct GlobalPoolingOptions {
  bool keepdims = false;
  KILN_LAYER_ARGS_FIELDS
};

class GlobalPooling : public Layer {
 public:
  enum class Kind { max, average };

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  std::vector<Tensor> compute_mask(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& masks) override;
  Config get_config() const override;

 protected:
  GlobalPooling(int rank, Kind kind, GlobalPoolingOptions options);
  static GlobalPoolingOptions options_of(const Config& c, std::string_view class_name);

 private:
  int rank_;
  Kind kind_;
  GlobalPoolingOptions options_;
};

class GlobalAveragePooling1D : public GlobalPooling {
  KILN_LAYER_CLASS(GlobalAveragePooling1D)

 public:
  explicit GlobalAveragePooling1D(GlobalPoolingOptions options = {})
      : GlobalPooling(1, Kind::average, std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class GlobalAveragePooling2D : public GlobalPooling {
  KILN_LAYER_CLASS(GlobalAveragePooling2D)

 public:
  explicit GlobalAveragePooling2D(GlobalPoolingOptions options = {})
      : GlobalPooling(2, Kind::average, std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class GlobalMaxPooling1D : public GlobalPooling {
  KILN_LAYER_CLASS(GlobalMaxPooling1D)

 public:
  explicit GlobalMaxPooling1D(GlobalPoolingOptions options = {})
      : GlobalPooling(1, Kind::max, std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

class GlobalMaxPooling2D : public GlobalPooling {
  KILN_LAYER_CLASS(GlobalMaxPooling2D)

 public:
  explicit GlobalMaxPooling2D(GlobalPoolingOptions options = {})
      : GlobalPooling(2, Kind::max, std::move(options)) {}
  static LayerPtr from_config(const Config& config);
};

}  // namespace kiln::layers
