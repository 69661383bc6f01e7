#pragma once
// Reading and writing the pieces every layer config shares: base arguments, initializers,
// regularizers and constraints in Keras's serialized forms, and the field tables (config_fields.h)
// from which a layer's get_config, from_config and unknown-key check come:
//
//   const FieldTable<DenseOptions> options{field("use_bias", &DenseOptions::use_bias),
//       initializer_field("kernel_initializer", &DenseOptions::kernel_initializer), ...};
//   struct DenseArguments : DenseOptions { int64_t units = 0; };  // + the required arguments
//   const FieldTable<DenseArguments> fields = with_options<DenseArguments>(
//       {required(field("units", &DenseArguments::units))}, options);
//   DenseArguments a = read_layer_fields(config, fields, "Dense");
//   Config written = write_fields(DenseArguments{options_, units_}, fields, Layer::get_config());
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/config_fields.h"
#include "kiln/layers/activations/activations.h"
#include "kiln/layers/constraints/constraints.h"
#include "kiln/layers/initializers/initializers.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/regularizers/regularizers.h"

namespace kiln::layers {

Config serialize_initializer(const initializers::InitializerArg& initializer);
Config serialize_regularizer(const regularizers::RegularizerPtr& regularizer);
Config serialize_constraint(const constraints::ConstraintPtr& constraint);

// A shape as Keras writes it, unknown dims as null ([null, 28, 28]), and back.
Config serialize_shape(const Shape& shape);
Shape deserialize_shape(const Config& dims);

// The base arguments (name, trainable, dtype as a name or a DTypePolicy map, batch_input_shape).
LayerArgs layer_args_of(const Config& config);

// The keys of the base arguments, which every layer config may hold.
std::vector<std::string> layer_arg_keys();

template <typename Options>
ConfigField<Options> initializer_field(std::string key,
                                       initializers::InitializerArg Options::*member) {
  return field(std::move(key), member, initializers::from_config, serialize_initializer);
}

template <typename Options>
ConfigField<Options> regularizer_field(std::string key,
                                       regularizers::RegularizerPtr Options::*member) {
  return field(std::move(key), member, regularizers::from_config, serialize_regularizer);
}

template <typename Options>
ConfigField<Options> activation_field(std::string key,
                                      activations::ActivationArg Options::*member) {
  return field(std::move(key), member, activations::ActivationArg::from_config,
               [](const activations::ActivationArg& a) { return a.to_config(); });
}

template <typename Options>
ConfigField<Options> constraint_field(std::string key,
                                      constraints::ConstraintPtr Options::*member) {
  return field(std::move(key), member, constraints::from_config, serialize_constraint);
}

// Keras writes activity_regularizer into the configs of the layers that take it as an argument
// (Dense, convolutions, recurrent layers), null when unset. The base arguments read it
// (layer_args_of); this writes it.
template <typename Options>
ConfigField<Options> activity_regularizer_field() {
  return {"activity_regularizer", [](const Config&, Options&, std::string_view) {},
          [](const Options& o) { return serialize_regularizer(o.activity_regularizer); }};
}

// A layer's options from `config`: its table over the struct's defaults, then the base
// arguments. A key in neither, nor in `extra` (arguments read apart: a wrapper's inner layer),
// is refused with a suggestion.
template <typename Options>
Options read_layer_fields(const Config& config, const FieldTable<Options>& table,
                          std::string_view class_name, std::vector<std::string> extra = {}) {
  std::vector<std::string> keys = layer_arg_keys();
  keys.insert(keys.end(), extra.begin(), extra.end());
  Options options = read_fields(config, table, class_name, Options{}, std::move(keys));
  LayerArgs args = layer_args_of(config);
  options.name = std::move(args.name);
  options.trainable = args.trainable;
  options.dtype = std::move(args.dtype);
  options.input_shape = std::move(args.input_shape);
  options.activity_regularizer = std::move(args.activity_regularizer);
  return options;
}

// The same for options that hold only the base arguments (a Reshape's).
template <typename Options>
Options read_layer_fields(const Config& config, std::string_view class_name,
                          std::vector<std::string> extra = {}) {
  return read_layer_fields(config, FieldTable<Options>{}, class_name, std::move(extra));
}

}  // namespace kiln::layers
