#include "kiln/training/model/sequential.h"

#include <optional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/summary.h"

namespace kiln {

using layers::LayerPtr;

Sequential::Sequential(std::vector<layers::LayerRef> layers, std::string name)
    : Model(std::move(name)) {
  for (const layers::LayerRef& layer : layers) add(layer);
}

void Sequential::add(const layers::LayerRef& ref) {
  const LayerPtr& layer = ref.get();
  if (auto* input = dynamic_cast<layers::InputLayer*>(layer.get())) {
    KILN_CHECK(layers_.empty() && !input_spec_, "Sequential '", name(),
               "': an Input can only come first");
    // On the device the layers build their weights on (a DeviceScope's, else the CPU).
    input_spec_ = TensorMeta{input->input_dtype(), input->batch_shape(), default_device()};
    input_declared_ = true;
    input_layer_ = layer;
    return;
  }
  if (layers_.empty() && !input_spec_ && layer->input_shape_arg().rank() > 0) {
    std::vector<int64_t> dims{-1};
    dims.insert(dims.end(), layer->input_shape_arg().begin(), layer->input_shape_arg().end());
    input_spec_ = TensorMeta{DType::f32, Shape(std::move(dims)), default_device()};
    input_declared_ = true;
  }
  layers_.push_back(layer);
  track(layer);
  if (!input_spec_) return;
  // Only the new layer is built when the others are: adding n layers one by one stays linear.
  const bool others_built = output_specs_.size() + 1 == layers_.size() &&
                            (layers_.size() == 1 || layers_[layers_.size() - 2]->built());
  if (!others_built) return build_symbolically();
  extend_symbolically(*layer);
  build_from({input_spec_->shape});
}

void Sequential::pop() {
  KILN_CHECK(!layers_.empty(), "Sequential '", name(), "': pop() on a model with no layers");
  layers_.pop_back();
  set_sublayers(layers_);
  if (output_specs_.size() > layers_.size()) output_specs_.resize(layers_.size());
}

std::vector<TensorMeta> Sequential::input_specs() const {
  if (input_spec_) return {*input_spec_};
  return {};
}

std::vector<TensorMeta> Sequential::declared_input_specs() const {
  return input_declared_ ? input_specs() : std::vector<TensorMeta>{};
}

std::string Sequential::input_name(size_t) const {
  return input_layer_ ? input_layer_->name() : "input_layer";
}

std::vector<std::shared_ptr<layers::StringLayer>> Sequential::string_readers() const {
  if (!input_spec_ || input_spec_->dtype != DType::string) return {nullptr};
  auto reader =
      layers_.empty() ? nullptr : std::dynamic_pointer_cast<layers::StringLayer>(layers_.front());
  KILN_CHECK(reader != nullptr, "Sequential '", name(),
             "': a string input must go first into a layer that reads strings ",
             "(TextVectorization)",
             layers_.empty() ? "" : ", not " + layers_.front()->class_name());
  return {reader};
}

void Sequential::build_symbolically() {
  output_specs_.clear();
  for (const LayerPtr& layer : layers_) extend_symbolically(*layer);
  build_from({input_spec_->shape});
}

void Sequential::extend_symbolically(layers::Layer& layer) {
  const std::vector<TensorMeta> specs =
      layer.compute_output_spec({output_specs_.empty() ? *input_spec_ : output_specs_.back()});
  KILN_CHECK(specs.size() == 1, "Sequential '", name(), "': layer '", layer.name(), "' has ",
             specs.size(), " outputs; Sequential layers must have one");
  output_specs_.push_back(specs[0]);
}

void Sequential::build(const std::vector<Shape>& input_shapes) {
  if (input_spec_) return;
  KILN_CHECK(input_shapes.size() == 1, "Sequential '", name(), "' takes one input, got ",
             input_shapes.size());
  std::vector<int64_t> dims = input_shapes[0].dims();
  if (!dims.empty()) dims[0] = -1;  // the batch dim is free
  // On the model's device once compiled (build called after compile), else where the caller is
  // (a DeviceScope's device, the trainer's for the first batch).
  std::optional<DeviceScope> on_model_device;
  if (compiled()) on_model_device.emplace(device());
  input_spec_ = TensorMeta{dtype_policy().compute, Shape(std::move(dims)), default_device()};
  build_symbolically();
}

void Sequential::unbuild(size_t kept) {
  Model::unbuild(kept);
  if (input_declared_) return;
  input_spec_.reset();
  output_specs_.clear();
}

std::vector<Tensor> Sequential::call(const std::vector<Tensor>& inputs,
                                     const layers::CallContext& context) {
  KILN_CHECK(inputs.size() == 1, "Sequential '", name(), "' takes one input, got ", inputs.size());
  std::vector<Tensor> x = inputs;
  layers::CallContext ctx = context;
  // In the traced steps a string input comes as the first layer made it on the host
  // (Model::encode_string_inputs): it is not run again.
  const bool encoded =
      input_spec_ && input_spec_->dtype == DType::string && inputs[0].dtype() != DType::string;
  for (const LayerPtr& layer : layers_) {
    if (encoded && layer == layers_.front()) continue;
    std::vector<Tensor> y = (*layer)(x, ctx);
    ctx.masks = layer->compute_mask(x, ctx.masks);
    x = std::move(y);
  }
  set_output_masks(ctx.masks);
  return x;
}

std::vector<Tensor> Sequential::compute_mask(const std::vector<Tensor>& inputs,
                                             const std::vector<Tensor>& masks) {
  // Layers make masks from their inputs (Embedding, Masking): the layers run to know them.
  (void)call(inputs, layers::CallContext{.training = false, .masks = masks});
  return output_masks();
}

Config Sequential::get_config() const {
  Config list = Config::list();
  if (input_layer_) list.push_back(layers::serialize_layer(*input_layer_));
  for (const LayerPtr& layer : layers_) list.push_back(layers::serialize_layer(*layer));
  Config c = Layer::get_config().set("layers", std::move(list));
  if (input_spec_) c.set("build_input_shape", layers::serialize_shape(input_spec_->shape));
  return c;
}

LayerPtr Sequential::from_config(const Config& c) {
  c.check_keys({"name", "trainable", "dtype", "layers", "build_input_shape"}, "Sequential");
  auto model =
      std::make_shared<Sequential>(std::vector<layers::LayerRef>{}, c.get_string("name", ""));
  model->set_trainable(c.get_bool("trainable", true));
  for (const Config& layer : c["layers"].as_list()) model->add(layers::deserialize_layer(layer));
  // Without an InputLayer, the shape the model was built for (batch dim first) builds it.
  if (const Config* shape = c.find("build_input_shape");
      !model->built() && shape != nullptr && !shape->is_null())
    model->build_from({layers::deserialize_shape(*shape)});
  return model;
}

std::vector<SummaryRow> Sequential::summary_rows() const {
  std::vector<SummaryRow> rows;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerPtr& layer = layers_[i];
    rows.push_back({layer->name() + " (" + layer->class_name() + ")",
                    i < output_specs_.size() ? format_shape(output_specs_[i].shape) : "?",
                    layer->built() ? layer->count_params() : 0, ""});
  }
  return rows;
}

}  // namespace kiln
