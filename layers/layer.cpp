#include "kiln/layers/layer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <mutex>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/call_losses.h"
#include "kiln/layers/trial_build.h"

namespace kiln::layers {
namespace {

struct NameCounts {
  std::mutex mutex;
  std::map<std::string, int> counts;
};
NameCounts& name_counts() {
  static NameCounts n;
  return n;
}

std::vector<Shape> shapes_of(const std::vector<TensorMeta>& metas) {
  std::vector<Shape> out;
  for (const TensorMeta& m : metas) out.push_back(m.shape);
  return out;
}

}  // namespace

std::string to_snake_case(const std::string& class_name) {
  // Keras's rule: "_" before an upper-case letter that starts a lower-case word, and between a
  // lower-case letter and an upper-case one ("GlobalAveragePooling2D" -> global_average_pooling2d,
  // "LSTMCell" -> lstm_cell).
  const auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  const auto lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  for (size_t i = 0; i < class_name.size(); ++i) {
    const char c = class_name[i];
    const bool word_start = i > 0 && upper(c) && i + 1 < class_name.size() &&
                            lower(class_name[i + 1]) && class_name[i - 1] != '_';
    const bool after_lower = i > 0 && upper(c) && lower(class_name[i - 1]);
    if (word_start || after_lower) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string unique_name(const std::string& class_name) {
  const std::string base = to_snake_case(class_name);
  NameCounts& n = name_counts();
  std::lock_guard lock(n.mutex);
  const int k = n.counts[base]++;
  return k == 0 ? base : base + "_" + std::to_string(k);
}

void reset_names() {
  NameCounts& n = name_counts();
  std::lock_guard lock(n.mutex);
  n.counts.clear();
}

uint64_t next_call_serial() {
  static std::atomic<uint64_t> count{0};
  return count++;
}

Layer::Layer(LayerArgs args)
    : name_(std::move(args.name)),
      trainable_(args.trainable),
      policy_(args.dtype.empty() ? global_policy() : DTypePolicy::from_name(args.dtype)),
      input_shape_(std::move(args.input_shape)),
      activity_regularizer_(std::move(args.activity_regularizer)) {}

const std::string& Layer::name() const {
  // Named on first use: a constructor cannot ask for the class name of what it constructs.
  if (name_.empty()) name_ = unique_name(class_name());
  return name_;
}

void Layer::build(const std::vector<Shape>&) {}

void Layer::build_from(const std::vector<Shape>& input_shapes) {
  if (built_) return;
  // Recorded before building: a build that fails halfway is undone with the rest of the trial.
  if (TrialBuild* trial = TrialBuild::active()) trial->record(*this);
  build(input_shapes);
  built_ = true;
}

Layer::~Layer() {
  TrialBuild::forget(*this);
}

void Layer::unbuild(size_t kept) {
  built_ = false;
  weights_.resize(kept);
  regularizers_.resize(kept);
}

void Layer::set_trainable(bool trainable) {
  trainable_ = trainable;
  for (const std::shared_ptr<Layer>& layer : sublayers_) layer->set_trainable(trainable);
}

std::vector<Tensor> Layer::operator()(const std::vector<Tensor>& inputs,
                                      const CallContext& context) {
  try {
    if (!built_) {
      std::vector<Shape> shapes;
      for (const Tensor& t : inputs) shapes.push_back(t.shape());
      build_from(shapes);
    }
    std::vector<Tensor> cast_inputs = inputs;
    for (Tensor& t : cast_inputs)
      if (autocast_ && t.defined() && is_floating(t.dtype()) && t.dtype() != policy_.compute)
        t = ops::cast(t, policy_.compute);
    std::vector<Tensor> outputs = call(cast_inputs, context);
    if (activity_regularizer_ && CallLosses::active())
      for (const Tensor& out : outputs)
        if (out.defined() && is_floating(out.dtype()))
          CallLosses::add((*activity_regularizer_)(ops::cast(out, DType::f32)));
    return outputs;
  } catch (const Error& e) {
    // Each enclosing layer adds itself, so a failure deep in a model reads as a path; a read of
    // a symbolic tensor's values keeps its type, which shape-only checks look for.
    std::string shapes;
    for (const Tensor& t : inputs) shapes += (shapes.empty() ? "" : ", ") + describe(t.meta());
    std::string message =
        "layer '" + name() + "' (" + class_name() + ") on inputs " + shapes + ": " + e.what();
    if (dynamic_cast<const SymbolicValueError*>(&e) != nullptr)
      throw SymbolicValueError(std::move(message));
    throw Error(std::move(message));
  }
}

Tensor Layer::operator()(const Tensor& input, bool training) {
  const std::vector<Tensor> out = (*this)({input}, CallContext{.training = training});
  KILN_CHECK(out.size() == 1, "layer '", name(), "' returned ", out.size(),
             " outputs; call it with a list of inputs to get all of them");
  return out[0];
}

std::vector<KerasTensor> Layer::operator()(const std::vector<KerasTensor>& inputs) & {
  std::shared_ptr<Layer> self = weak_from_this().lock();
  KILN_CHECK(self != nullptr, "layer '", name(),
             "' is called on symbolic inputs but is not owned by a shared_ptr: create it with "
             "std::make_shared or kiln::layers::share(...) to call it more than once, or call a "
             "temporary");
  return call_symbolic(std::move(self), inputs);
}

std::vector<KerasTensor> Layer::operator()(const std::vector<KerasTensor>& inputs) && {
  if (std::shared_ptr<Layer> self = weak_from_this().lock())
    return call_symbolic(std::move(self), inputs);
  return call_symbolic(std::move(*this).into_shared(), inputs);
}

KerasTensor Layer::operator()(const KerasTensor& input) & {
  auto out = (*this)(std::vector<KerasTensor>{input});
  KILN_CHECK(out.size() == 1, "layer '", name(), "' has ", out.size(), " outputs");
  return out[0];
}

KerasTensor Layer::operator()(const KerasTensor& input) && {
  auto out = std::move(*this)(std::vector<KerasTensor>{input});
  KILN_CHECK(out.size() == 1, "layer has ", out.size(), " outputs");
  return out[0];
}

std::vector<KerasTensor> Layer::call_symbolic(std::shared_ptr<Layer> self,
                                              const std::vector<KerasTensor>& inputs) {
  std::vector<TensorMeta> metas;
  for (const KerasTensor& t : inputs) {
    KILN_CHECK(t.defined(), "layer '", self->name(), "' got an undefined symbolic input");
    metas.push_back(t.meta());
  }
  auto record = std::make_shared<CallRecord>();
  record->outputs = self->compute_output_spec(metas);
  record->layer = std::move(self);
  record->inputs = inputs;
  std::vector<KerasTensor> out;
  for (size_t i = 0; i < record->outputs.size(); ++i)
    out.emplace_back(record->outputs[i], record, i);
  return out;
}

std::vector<TensorMeta> Layer::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  std::vector<Tensor> symbolic;
  for (const TensorMeta& m : inputs) symbolic.push_back(Tensor::symbolic(m));
  std::vector<TensorMeta> out;
  for (const Tensor& t : (*this)(symbolic, CallContext{})) out.push_back(t.meta());
  return out;
}

std::vector<Shape> Layer::compute_output_shape(const std::vector<Shape>& input_shapes) {
  // Beside the layer's weights (on a model's GPU, say): a shape-only call still checks devices.
  const std::vector<Variable> held = weights();
  const Device device = held.empty() ? default_device() : held[0].meta().device;
  std::vector<TensorMeta> metas;
  for (const Shape& s : input_shapes) metas.push_back({policy_.compute, s, device});
  return shapes_of(compute_output_spec(metas));
}

std::vector<Tensor> Layer::compute_mask(const std::vector<Tensor>&,
                                        const std::vector<Tensor>& masks) {
  if (supports_masking_) return masks;
  const bool masked =
      std::any_of(masks.begin(), masks.end(), [](const Tensor& m) { return m.defined(); });
  if (masked && !warned_mask_dropped_) {
    warned_mask_dropped_ = true;
    log(LogLevel::warning, "layer '", name(), "' (", class_name(),
        ") does not support masking: the mask of its input is dropped, so later layers and the "
        "loss see padded steps as data");
  }
  return {};
}

std::vector<WeightGroup> Layer::weight_groups() const {
  std::vector<WeightGroup> out = layer_list_weight_groups("", sublayers_);
  out.insert(out.begin(), WeightGroup{"", own_weights(), name()});
  return out;
}

std::vector<Variable> Layer::random_states() const {
  std::vector<Variable> out = random_states_;
  for (const auto& layer : sublayers_)
    for (const Variable& v : layer->random_states())
      if (std::none_of(out.begin(), out.end(),
                       [&](const Variable& o) { return o.state() == v.state(); }))
        out.push_back(v);
  return out;
}

std::vector<Variable> Layer::own_weights() const {
  std::vector<Variable> out;
  for (const bool trainable : {true, false})
    for (const Variable& v : weights_)
      if (v.trainable() == trainable) out.push_back(v);
  return out;
}

void append_weight_groups(std::vector<WeightGroup>& out, const std::string& prefix,
                          const Layer& layer) {
  for (WeightGroup& g : layer.weight_groups()) {
    g.path = prefix.empty() ? g.path : g.path.empty() ? prefix : prefix + "/" + g.path;
    out.push_back(std::move(g));
  }
}

std::vector<WeightGroup> layer_list_weight_groups(const std::string& prefix,
                                                  const std::vector<LayerPtr>& layers) {
  std::vector<WeightGroup> out;
  std::map<std::string, int> used;
  for (const LayerPtr& layer : layers) {
    const std::string base = to_snake_case(layer->class_name());
    const auto [it, first] = used.try_emplace(base, 0);
    const std::string name = first ? base : base + "_" + std::to_string(++it->second);
    append_weight_groups(out, prefix.empty() ? name : prefix + "/" + name, *layer);
  }
  return out;
}

Config Layer::get_config() const {
  Config config =
      Config::map().set("name", name()).set("trainable", trainable_).set("dtype", policy_.name);
  // Keras's base config takes activity_regularizer for every layer; written when set.
  if (activity_regularizer_)
    config.set("activity_regularizer", regularizers::serialize(*activity_regularizer_));
  return config;
}

Variable Layer::add_weight(const std::string& name, const Shape& shape,
                           const initializers::InitializerPtr& initializer, bool trainable,
                           regularizers::RegularizerPtr regularizer,
                           const constraints::ConstraintPtr& constraint) {
  KILN_CHECK(shape.is_fully_defined(), "layer '", this->name(), "': weight '", name,
             "' needs a known shape, got ", shape,
             " (is the input's last dim unknown? give the Input a full shape)");
  Variable v = TrialBuild::active() != nullptr
                   ? Variable::symbolic({policy_.variable, shape, default_device()},
                                        this->name() + "/" + name, trainable)
                   : Variable((*initializer)(shape, policy_.variable, random::default_generator()),
                              this->name() + "/" + name, trainable);
  if (constraint) v.set_constraint([constraint](const Tensor& w) { return (*constraint)(w); });
  weights_.push_back(v);
  regularizers_.push_back(std::move(regularizer));
  return v;
}

Variable Layer::add_state(const std::string& name, const Tensor& initial) {
  Variable v = TrialBuild::active() != nullptr
                   ? Variable::symbolic(initial.meta(), this->name() + "/" + name, false)
                   : Variable(initial, this->name() + "/" + name, false);
  weights_.push_back(v);
  regularizers_.push_back(nullptr);
  return v;
}

Tensor Layer::read(const Variable& weight) const {
  const Tensor v = weight.value();
  return v.dtype() != policy_.compute && is_floating(v.dtype()) ? ops::cast(v, policy_.compute) : v;
}

void Layer::collect_weights(std::vector<Variable>& out, std::vector<const Layer*>& seen) const {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  out.insert(out.end(), weights_.begin(), weights_.end());
  for (const auto& layer : sublayers_) layer->collect_weights(out, seen);
}

std::vector<Variable> Layer::weights() const {
  std::vector<Variable> out;
  std::vector<const Layer*> seen;
  collect_weights(out, seen);
  return out;
}

std::vector<Variable> Layer::trainable_weights() const {
  std::vector<Variable> out;
  std::vector<const Layer*> seen;
  collect_trainable(out, seen, true);
  return out;
}

std::vector<Variable> Layer::non_trainable_weights() const {
  std::vector<Variable> out;
  std::vector<const Layer*> seen;
  collect_trainable(out, seen, false);
  return out;
}

void Layer::collect_trainable(std::vector<Variable>& out, std::vector<const Layer*>& seen,
                              bool want_trainable, bool parent_trainable) const {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  // A frozen layer freezes everything under it (Keras's layer.trainable = False).
  const bool trainable = parent_trainable && trainable_;
  for (const Variable& v : weights_)
    if ((trainable && v.trainable()) == want_trainable) out.push_back(v);
  for (const auto& layer : sublayers_)
    layer->collect_trainable(out, seen, want_trainable, trainable);
}

int64_t Layer::count_params() const {
  int64_t n = 0;
  for (const Variable& v : weights()) n += v.shape().numel();
  return n;
}

Tensor Layer::regularization_loss() const {
  Tensor total;
  std::vector<const Layer*> seen;
  add_penalties(total, seen, true);
  return total;
}

void Layer::add_penalties(Tensor& total, std::vector<const Layer*>& seen,
                          bool parent_trainable) const {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  // Keras penalizes the trainable weights, each once: a frozen layer's are constants.
  const bool trainable = parent_trainable && trainable_;
  for (size_t i = 0; i < weights_.size(); ++i) {
    if (!regularizers_[i] || !trainable || !weights_[i].trainable()) continue;
    const Tensor penalty = (*regularizers_[i])(ops::cast(weights_[i].value(), DType::f32));
    total = total.defined() ? total + penalty : penalty;
  }
  for (const auto& layer : sublayers_) layer->add_penalties(total, seen, trainable);
}

LayerRef::LayerRef(const KerasTensor& input) {
  KILN_CHECK(input.defined() && input.record()->inputs.empty(),
             "only an Input(...) can stand in a Sequential's layer list");
  layer_ = input.record()->layer;
}

}  // namespace kiln::layers
