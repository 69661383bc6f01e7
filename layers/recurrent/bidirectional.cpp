#include "kiln/layers/recurrent/bidirectional.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/registry.h"

namespace kiln::layers {
namespace {

std::shared_ptr<Recurrent> as_recurrent(const LayerPtr& layer, const char* role) {
  auto r = std::dynamic_pointer_cast<Recurrent>(layer);
  KILN_CHECK(r != nullptr, "Bidirectional: the ", role,
             " layer must be a recurrent layer (SimpleRNN, GRU, LSTM), got ",
             layer ? layer->class_name() : std::string("none"));
  return r;
}

// A new layer from `layer`'s config under another name, going the given direction. Sequence
// outputs zero their masked steps, as Keras sets for both halves, so the merged steps agree.
std::shared_ptr<Recurrent> recreate(const Recurrent& layer, const std::string& name,
                                    bool go_backwards) {
  Config serialized = serialize_layer(layer);
  Config* config = serialized.find("config");
  config->set("name", name).set("go_backwards", go_backwards);
  if (layer.options().return_sequences) config->set("zero_output_for_mask", true);
  return as_recurrent(deserialize_layer(serialized), "recreated");
}

std::string without_prefix(const std::string& name, const std::string& prefix) {
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

Tensor merge(const std::string& mode, const Tensor& a, const Tensor& b) {
  if (mode == "concat") return ops::concat({a, b}, a.rank() - 1);
  if (mode == "sum") return a + b;
  if (mode == "mul") return a * b;
  return (a + b) * 0.5;  // ave
}

}  // namespace

Bidirectional::Bidirectional(LayerRef layer, BidirectionalOptions options)
    : Layer(options.layer_args()), merge_mode_(std::move(options.merge_mode)) {
  const auto given = as_recurrent(layer.get(), "wrapped");
  KILN_CHECK(merge_mode_ == "concat" || merge_mode_ == "sum" || merge_mode_ == "mul" ||
                 merge_mode_ == "ave" || merge_mode_.empty(),
             "Bidirectional: merge_mode must be concat, sum, mul, ave or none, got '", merge_mode_,
             "'");
  const std::string base = without_prefix(given->name(), "forward_");
  forward_ = track(recreate(*given, "forward_" + base, given->options().go_backwards));
  if (options.backward_layer) {
    const auto back = as_recurrent(options.backward_layer, "backward");
    KILN_CHECK(back->options().go_backwards != given->options().go_backwards &&
                   back->options().return_sequences == given->options().return_sequences &&
                   back->options().return_state == given->options().return_state,
               "Bidirectional: backward_layer '", back->name(),
               "' must run the other direction with the same return_sequences and return_state");
    backward_ = track(back);
  } else {
    backward_ = track(recreate(*given, "backward_" + base, !given->options().go_backwards));
  }
  supports_masking_ = true;
}

void Bidirectional::build(const std::vector<Shape>& input_shapes) {
  forward_->build_from({input_shapes.at(0)});
  backward_->build_from({input_shapes.at(0)});
}

std::vector<Tensor> Bidirectional::call(const std::vector<Tensor>& inputs,
                                        const CallContext& context) {
  const size_t states = (inputs.size() - 1) / 2;
  KILN_CHECK(inputs.size() == 1 + 2 * states, "layer '", name(),
             "' (Bidirectional) takes its input then as many initial states for each direction, "
             "got ",
             inputs.size(), " tensors");
  std::vector<Tensor> forward_in{inputs[0]}, backward_in{inputs[0]};
  for (size_t i = 0; i < states; ++i) {
    forward_in.push_back(inputs[1 + i]);
    backward_in.push_back(inputs[1 + states + i]);
  }
  CallContext inner{context.training, {}};
  if (!context.masks.empty()) inner.masks = {context.masks[0]};
  const std::vector<Tensor> f = (*forward_)(forward_in, inner);
  const std::vector<Tensor> b = (*backward_)(backward_in, inner);
  Tensor b_out = b[0];
  // The backward half's steps come out last-first: back into input order.
  if (backward_->options().return_sequences)
    b_out = ops::strided_slice(b_out, {0, kSliceEnd}, {kSliceEnd, kSliceEnd}, {1, -1});
  std::vector<Tensor> out;
  if (merge_mode_.empty()) {
    out = {f[0], b_out};
  } else {
    out = {merge(merge_mode_, f[0], b_out)};
  }
  out.insert(out.end(), f.begin() + 1, f.end());
  out.insert(out.end(), b.begin() + 1, b.end());
  return out;
}

// The merged output(s) take the wrapped layer's output mask; then each direction's states.
std::vector<Tensor> Bidirectional::compute_mask(const std::vector<Tensor>& inputs,
                                                const std::vector<Tensor>& masks) {
  const std::vector<Tensor> one = forward_->compute_mask(inputs, masks);
  std::vector<Tensor> out(merge_mode_.empty() ? 2 : 1, one[0]);
  for (int direction = 0; direction < 2; ++direction)
    out.insert(out.end(), one.begin() + 1, one.end());
  return out;
}

std::vector<WeightGroup> Bidirectional::weight_groups() const {
  std::vector<WeightGroup> out{{"", {}, name()}};
  append_weight_groups(out, "forward_layer", *forward_);
  append_weight_groups(out, "backward_layer", *backward_);
  return out;
}

namespace {

// merge_mode's null is Keras's None (no merge: both directions' outputs), not "the default". The
// wrapped layers are written from the layers themselves; Keras 2's initial weights are ignored.
const FieldTable<BidirectionalOptions>& fields() {
  static const FieldTable<BidirectionalOptions> table{
      nullable(field(
          "merge_mode", &BidirectionalOptions::merge_mode,
          [](const Config& mode) { return mode.is_null() ? std::string() : mode.as_string(); },
          [](const std::string& mode) { return mode.empty() ? Config() : Config(mode); })),
      ignored_field<BidirectionalOptions>("weights")};
  return table;
}

}  // namespace

Config Bidirectional::get_config() const {
  BidirectionalOptions written;
  written.merge_mode = merge_mode_;
  return write_fields(written, fields(),
                      Layer::get_config()
                          .set("layer", serialize_layer(*forward_))
                          .set("backward_layer", serialize_layer(*backward_)));
}

LayerPtr Bidirectional::from_config(const Config& c) {
  BidirectionalOptions o =
      read_layer_fields(c, fields(), "Bidirectional", {"layer", "backward_layer"});
  if (const Config* back = c.find("backward_layer"); back != nullptr && !back->is_null())
    o.backward_layer = deserialize_layer(*back);
  return std::make_shared<Bidirectional>(deserialize_layer(c["layer"]), std::move(o));
}

}  // namespace kiln::layers
