#include "kiln/training/model/model.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/layers/registry.h"
#include "kiln/training/model/device_choice.h"
#include "kiln/training/model/functional_graph.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/model/summary.h"
#include "kiln/training/model/trainer.h"
#include "kiln/training/saving/weights_file.h"

namespace kiln {

Model::Model(std::string name) : Layer(layers::LayerArgs{.name = std::move(name)}) {}

Model::Model(std::vector<layers::KerasTensor> inputs, std::vector<layers::KerasTensor> outputs,
             std::string name)
    : Layer(layers::LayerArgs{.name = std::move(name)}) {
  graph_ = std::make_shared<FunctionalGraph>(std::move(inputs), std::move(outputs), this->name());
  set_sublayers(graph_->layers());
  build_from({});
}

Model::Model(const layers::KerasTensor& input, const layers::KerasTensor& output, std::string name)
    : Model(std::vector{input}, std::vector{output}, std::move(name)) {}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

std::string Model::class_name() const {
  return graph_ ? "Functional" : "Model";
}

std::shared_ptr<layers::Layer> Model::into_shared() && {
  KILN_CHECK(graph_ != nullptr,
             "a subclassed model needs KILN_LAYER_CLASS(YourModel) in its "
             "class to be used as a temporary layer");
  return std::make_shared<Model>(std::move(*this));
}

std::vector<Tensor> Model::call(const std::vector<Tensor>& inputs,
                                const layers::CallContext& context) {
  KILN_CHECK(graph_ != nullptr, "model '", name(),
             "' has no call(): a subclassed model overrides call(inputs, context)");
  FunctionalGraph::Result result = graph_->run(inputs, context);
  set_output_masks(std::move(result.masks));
  return std::move(result.outputs);
}

std::vector<Tensor> Model::compute_mask(const std::vector<Tensor>& inputs,
                                        const std::vector<Tensor>& masks) {
  if (!graph_) return Layer::compute_mask(inputs, masks);
  return graph_->run(inputs, layers::CallContext{.training = false, .masks = masks}).masks;
}

std::vector<layers::LayerPtr> Model::layers() const {
  return sublayers();
}

std::vector<layers::WeightGroup> Model::weight_groups() const {
  std::vector<layers::WeightGroup> out(1);
  out[0].variables = own_weights();
  out[0].name = name();
  for (layers::WeightGroup& g : layers::layer_list_weight_groups("layers", layers()))
    out.push_back(std::move(g));
  return out;
}

saving::ModelWeights Model::saved_weights() const {
  return {name(), built(), weight_groups(), layers()};
}

void Model::save_weights(const std::string& path) const {
  saving::save_weights(saved_weights(), path);
}

void Model::load_weights(const std::string& path) {
  saving::load_weights(saved_weights(), path);
}

void Model::save(const std::string& path) const {
  save_model(*this, path);
}

layers::WeightGroup Model::optimizer_weights() const {
  const optimizers::Optimizer& optimizer = trainer().optimizer();
  return {"optimizer", optimizer.variables(), layers::to_snake_case(optimizer.class_name())};
}

saving::CheckpointContents Model::checkpoint_contents() const {
  std::string config;
  try {
    config = layers::serialize_layer(*this).to_json();
  } catch (const Error&) {
    // A subclassed model has no Keras config: the checkpoint stores none.
  }
  return {saved_weights(), optimizer_weights(), random_states(), config};
}

layers::LayerPtr Model::get_layer(const std::string& name) const {
  std::vector<std::string> names;
  for (const layers::LayerPtr& layer : layers()) {
    if (layer->name() == name) return layer;
    names.push_back(layer->name());
  }
  const std::string hint = did_you_mean(name, names);
  throw Error("model '" + this->name() + "' has no layer '" + name + "'" +
              (hint.empty() ? "" : " (" + hint + ")"));
}

std::vector<TensorMeta> Model::input_specs() const {
  std::vector<TensorMeta> out;
  if (graph_)
    for (const layers::KerasTensor& t : graph_->inputs()) out.push_back(t.meta());
  return out;
}

std::vector<std::shared_ptr<layers::StringLayer>> Model::string_readers() const {
  std::vector<std::shared_ptr<layers::StringLayer>> readers;
  if (!graph_) return readers;
  for (const layers::KerasTensor& input : graph_->inputs()) {
    if (input.dtype() != DType::string) {
      readers.push_back(nullptr);
      continue;
    }
    std::vector<layers::LayerPtr> readers_of_input;
    for (const auto& record : graph_->records())
      for (const layers::KerasTensor& t : record->inputs)
        if (t.record() == input.record()) readers_of_input.push_back(record->layer);
    auto reader = readers_of_input.size() == 1
                      ? std::dynamic_pointer_cast<layers::StringLayer>(readers_of_input[0])
                      : nullptr;
    KILN_CHECK(reader != nullptr, "model '", name(), "': string input '",
               input.record()->layer->name(), "' must go into one layer that reads strings ",
               "(TextVectorization), which alone reads it; it goes into ", readers_of_input.size(),
               readers_of_input.size() == 1 ? " layer, " + readers_of_input[0]->class_name() +
                                                  " '" + readers_of_input[0]->name() + "'"
                                            : " layers");
    readers.push_back(std::move(reader));
  }
  return readers;
}

std::vector<Tensor> Model::encode_string_inputs(const std::vector<Tensor>& x) const {
  const auto readers = string_readers();
  std::vector<Tensor> out = x;
  for (size_t i = 0; i < out.size() && i < readers.size(); ++i)
    if (readers[i] && out[i].dtype() == DType::string) out[i] = readers[i]->encode(out[i]);
  return out;
}

std::vector<TensorMeta> Model::step_input_specs() const {
  std::vector<TensorMeta> specs = input_specs();
  const auto readers = string_readers();
  for (size_t i = 0; i < specs.size() && i < readers.size(); ++i)
    if (readers[i]) specs[i] = readers[i]->encoded_spec(specs[i]);
  return specs;
}

std::string Model::input_name(size_t i) const {
  if (graph_ && i < graph_->inputs().size()) return graph_->inputs()[i].record()->layer->name();
  return "input_" + std::to_string(i);
}

void Model::check_inputs(const std::vector<Tensor>& x, std::string_view call) const {
  const std::vector<TensorMeta> specs = declared_input_specs();
  if (specs.empty()) return;  // nothing declared (a subclassed model, a Sequential without Input)
  KILN_CHECK(x.size() == specs.size(), call, ": model '", name(), "' takes ", specs.size(),
             specs.size() == 1 ? " input" : " inputs", ", got ", x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const Shape& want = specs[i].shape;
    const Shape& got = x[i].shape();
    bool fits = got.rank() == want.rank();
    // The batch axis is free, as in Keras: a last, smaller batch fits.
    for (int a = 1; fits && a < want.rank(); ++a)
      fits = want.dim(a) < 0 || want.dim(a) == got.dim(a);
    KILN_CHECK(fits, call, ": model '", name(), "' input '", input_name(i), "' expects shape ",
               format_shape(want), ", got ", format_shape(got));
  }
}

size_t Model::num_outputs() const {
  return graph_ ? graph_->outputs().size() : 1;
}

std::string Model::output_name(size_t i) const {
  if (graph_ && i < graph_->outputs().size()) return graph_->outputs()[i].record()->layer->name();
  return "output_" + std::to_string(i);
}

namespace {

// Whether the graph is one chain of calls: a single input layer, every call reading at most one
// tensor, no layer called twice and no output read by two calls (Keras's "sequential-like").
bool is_chain(const FunctionalGraph& graph) {
  std::map<const layers::Layer*, int> calls;
  std::map<const layers::CallRecord*, int> readers;
  int sources = 0;
  for (const auto& record : graph.records()) {
    if (++calls[record->layer.get()] > 1 || record->inputs.size() > 1) return false;
    if (record->inputs.empty()) ++sources;
    for (const layers::KerasTensor& in : record->inputs)
      if (++readers[in.record().get()] > 1) return false;
  }
  return sources == 1;
}

}  // namespace

std::vector<SummaryRow> Model::summary_rows() const {
  std::vector<SummaryRow> rows;
  if (!graph_) {
    for (const layers::LayerPtr& layer : layers())
      rows.push_back({layer->name() + " (" + layer->class_name() + ")", "?",
                      layer->built() ? layer->count_params() : 0, ""});
    return rows;
  }
  // One row per layer: the shape of its first call, the inbound tensors of every call as
  // "layer[node][output]".
  for (const layers::LayerPtr& layer : graph_->layers()) {
    SummaryRow row{layer->name() + " (" + layer->class_name() + ")", "", layer->count_params(), ""};
    for (const auto& record : graph_->records()) {
      if (record->layer != layer) continue;
      if (row.output_shape.empty())
        row.output_shape =
            record->outputs.size() == 1 ? format_shape(record->outputs[0].shape) : "(multiple)";
      for (const layers::KerasTensor& in : record->inputs) {
        if (!row.connected_to.empty()) row.connected_to += ", ";
        row.connected_to += in.record()->layer->name() + "[" +
                            std::to_string(graph_->node_index(*in.record())) + "][" +
                            std::to_string(in.index()) + "]";
      }
    }
    if (row.connected_to.empty()) row.connected_to = "-";
    rows.push_back(std::move(row));
  }
  // Keras leaves "Connected to" out for a chain: one input, each layer called once on the
  // previous layer's output.
  if (is_chain(*graph_))
    for (SummaryRow& row : rows) row.connected_to.clear();
  return rows;
}

std::string Model::summary(int line_length) const {
  SummaryTotals totals;
  for (const Variable& v : trainable_weights()) totals.trainable += v.shape().numel();
  for (const Variable& v : non_trainable_weights()) totals.non_trainable += v.shape().numel();
  if (trainer_) {
    totals.optimizer = trainer_->optimizer_param_count();
    totals.device = trainer_->device().to_string();
  }
  totals.bytes_per_param = static_cast<int>(dtype_size(dtype_policy().variable));
  return render_summary(name(), summary_rows(), totals, line_length);
}

std::vector<Tensor> Model::get_weights() const {
  std::vector<Tensor> out;
  // Host copies, as Keras returns NumPy arrays.
  for (const Variable& v : weights())
    out.push_back(v.value().device().is_cpu() ? v.value().clone() : v.value().to(Device::cpu()));
  return out;
}

void Model::set_weights(const std::vector<Tensor>& values) {
  const std::vector<Variable> ws = weights();
  KILN_CHECK(values.size() == ws.size(), "model '", name(), "' has ", ws.size(),
             " weights; set_weights got ", values.size());
  for (size_t i = 0; i < ws.size(); ++i) ws[i].assign(values[i]);
}

bool Model::compiled() const {
  return compiled_;
}

bool Model::is_chief() const {
  return !trainer_ || trainer_->replica().id == 0;
}

Device Model::device() const {
  return trainer_ ? trainer_->device() : choose_device("").device;
}

Trainer& Model::trainer() const {
  KILN_CHECK(trainer_ != nullptr, "model '", name(),
             "' is not compiled: call compile() before fit, evaluate or train_on_batch");
  return *trainer_;
}

}  // namespace kiln
