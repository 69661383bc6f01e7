#include "kiln/layers/layer_config.h"

#include "kiln/framework/core/error.h"
#include "kiln/layers/initializers/initializers.h"

namespace kiln::layers {

Config serialize_initializer(const initializers::InitializerArg& initializer) {
  return initializers::serialize(*initializer);
}

Config serialize_regularizer(const regularizers::RegularizerPtr& regularizer) {
  return regularizer ? regularizers::serialize(*regularizer) : Config();
}

Config serialize_constraint(const constraints::ConstraintPtr& constraint) {
  return constraint ? constraints::serialize(*constraint) : Config();
}

std::vector<std::string> layer_arg_keys() {
  // Keras 3's base Layer config also holds activity_regularizer and autocast (a custom layer's
  // config has them): kiln reads both, and refuses autocast false in layer_args_of.
  return {"name",     "trainable",           "dtype", "input_shape", "batch_input_shape",
          "autocast", "activity_regularizer"};
}

Config serialize_shape(const Shape& shape) {
  std::vector<Config> dims;
  for (const int64_t d : shape) dims.emplace_back(d < 0 ? Config() : Config(d));
  return Config(std::move(dims));
}

Shape deserialize_shape(const Config& dims) {
  std::vector<int64_t> out;
  for (const Config& d : dims.as_list()) out.push_back(d.is_null() ? -1 : d.as_int());
  return Shape(std::move(out));
}

LayerArgs layer_args_of(const Config& config) {
  LayerArgs args;
  args.name = config.get_string("name", "");
  args.trainable = config.get_bool("trainable", true);
  KILN_CHECK(config.get_bool("autocast", true), config.where(),
             "autocast: false is not supported (kiln layers cast floating inputs to their "
             "compute dtype)");
  if (const Config* r = config.find("activity_regularizer"); r != nullptr)
    args.activity_regularizer = regularizers::from_config(*r);
  if (const Config* d = config.find("dtype"); d != nullptr && !d->is_null()) {
    // Keras 3 writes {"class_name": "DTypePolicy", "config": {"name": "float32"}}.
    args.dtype = d->is_string() ? d->as_string() : (*d)["config"]["name"].as_string();
  }
  if (const Config* s = config.find("batch_input_shape"); s != nullptr && !s->is_null()) {
    std::vector<int64_t> dims = deserialize_shape(*s).dims();
    if (!dims.empty()) dims.erase(dims.begin());  // the batch dim
    args.input_shape = Shape(std::move(dims));
  } else if (const Config* s2 = config.find("input_shape"); s2 != nullptr && !s2->is_null()) {
    args.input_shape = Shape(s2->as_int_list());
  }
  return args;
}

}  // namespace kiln::layers
