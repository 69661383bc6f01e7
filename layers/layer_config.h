#pragma once
// Reading and writing the pieces every layer config shares: base arguments, initializers and
// regularizers in Keras's serialized forms.
#include <string>
#include <string_view>

#include "kiln/framework/core/config.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

// {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {}, ...} for a name.
Config serialize_initializer(const std::string& name);
// An initializer given as a name or a serialized map, or `fallback` when absent.
std::string initializer_name(const Config& config, std::string_view key, std::string fallback);
Config serialize_regularizer(const regularizers::RegularizerPtr& regularizer);
regularizers::RegularizerPtr regularizer_of(const Config& config, std::string_view key);

// A shape as Keras writes it, unknown dims as null ([null, 28, 28]), and back.
Config serialize_shape(const Shape& shape);
Shape deserialize_shape(const Config& dims);

// The base arguments (name, trainable, dtype as a name or a DTypePolicy map, batch_input_shape).
LayerArgs layer_args_of(const Config& config);
template <typename Options>
void read_layer_args(const Config& config, Options& options) {
  LayerArgs args = layer_args_of(config);
  options.name = std::move(args.name);
  options.trainable = args.trainable;
  options.dtype = std::move(args.dtype);
  options.input_shape = std::move(args.input_shape);
}

// Rejects keys that are neither the layer's own nor base arguments, with a suggestion.
void check_layer_keys(const Config& config, std::initializer_list<std::string_view> own,
                      std::string_view class_name);

}  // namespace kiln::layers
