#include "kiln/training/model/functional_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {

using layers::CallRecord;
using layers::KerasTensor;

FunctionalGraph::FunctionalGraph(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs,
                                 const std::string& model_name)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  KILN_CHECK(!inputs_.empty() && !outputs_.empty(), "model '", model_name,
             "' needs at least one input and one output");
  // The inputs come first, in the order given (an input no output uses still takes a value).
  std::set<const CallRecord*> done;
  for (const KerasTensor& t : inputs_) {
    KILN_CHECK(t.defined() && t.record()->inputs.empty(), "model '", model_name,
               "': every input must come from Input(...)");
    if (done.insert(t.record().get()).second) records_.push_back(t.record());
  }
  // Depth-first post-order from the outputs: a record comes after the records it reads.
  std::vector<std::pair<std::shared_ptr<const CallRecord>, size_t>> stack;
  for (const KerasTensor& out : outputs_) {
    KILN_CHECK(out.defined(), "model '", model_name, "': an output is undefined");
    stack.emplace_back(out.record(), 0);
    while (!stack.empty()) {
      auto& [record, next] = stack.back();
      if (done.contains(record.get())) {
        stack.pop_back();
        continue;
      }
      if (next < record->inputs.size()) {
        stack.emplace_back(record->inputs[next++].record(), 0);
        continue;
      }
      KILN_CHECK(!record->inputs.empty(), "model '", model_name, "': output depends on Input '",
                 record->layer->name(), "', which is not among the model's inputs");
      done.insert(record.get());
      records_.push_back(record);
      stack.pop_back();
    }
  }
  std::vector<const CallRecord*> in_call_order;
  for (const auto& record : records_) in_call_order.push_back(record.get());
  std::sort(in_call_order.begin(), in_call_order.end(),
            [](const CallRecord* a, const CallRecord* b) { return a->serial < b->serial; });
  std::map<const layers::Layer*, size_t> calls;
  for (const CallRecord* record : in_call_order) node_index_[record] = calls[record->layer.get()]++;
}

FunctionalGraph::Result FunctionalGraph::run(const std::vector<Tensor>& inputs,
                                             const layers::CallContext& context) const {
  KILN_CHECK(inputs.size() == inputs_.size(), "the model takes ", inputs_.size(), " inputs, got ",
             inputs.size());
  std::map<const CallRecord*, std::vector<Tensor>> values;
  std::map<const CallRecord*, std::vector<Tensor>> masks;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorMeta& spec = inputs_[i].meta();
    Tensor x = inputs[i];
    // In the traced steps a string input comes as the layer reading it made it on the host
    // (Model::encode_string_inputs): that layer's output, which it is not run again to make.
    if (spec.dtype == DType::string && x.dtype() != DType::string) {
      for (const auto& record : records_)
        for (const KerasTensor& t : record->inputs)
          if (t.record() == inputs_[i].record()) values[record.get()] = {x};
      continue;
    }
    const int rank = spec.shape.rank();
    KILN_CHECK(x.rank() == rank, "input '", inputs_[i].record()->layer->name(), "' expects ",
               describe(spec), ", got ", describe(x.meta()));
    for (int d = 0; d < rank; ++d)
      KILN_CHECK(spec.shape[d] < 0 || x.shape()[d] < 0 || spec.shape[d] == x.shape()[d], "input '",
                 inputs_[i].record()->layer->name(), "' expects ", describe(spec), ", got ",
                 describe(x.meta()));
    if (is_floating(x.dtype()) && is_floating(spec.dtype) && x.dtype() != spec.dtype)
      x = ops::cast(x, spec.dtype);
    values[inputs_[i].record().get()] = {x};
  }
  for (const auto& record : records_) {
    if (record->inputs.empty() || values.contains(record.get())) continue;
    std::vector<Tensor> in;
    layers::CallContext ctx{.training = context.training, .masks = {}};
    bool any_mask = false;
    for (const KerasTensor& t : record->inputs) {
      in.push_back(values.at(t.record().get()).at(t.index()));
      const auto& m = masks[t.record().get()];
      ctx.masks.push_back(t.index() < m.size() ? m[t.index()] : Tensor());
      any_mask = any_mask || ctx.masks.back().defined();
    }
    if (!any_mask) ctx.masks.clear();
    std::vector<Tensor> out = (*record->layer)(in, ctx);
    masks[record.get()] = record->layer->compute_mask(in, ctx.masks);
    values[record.get()] = std::move(out);
  }
  Result result;
  for (const KerasTensor& t : outputs_) {
    result.outputs.push_back(values.at(t.record().get()).at(t.index()));
    const auto& m = masks[t.record().get()];
    result.masks.push_back(t.index() < m.size() ? m[t.index()] : Tensor());
  }
  return result;
}

size_t FunctionalGraph::node_index(const CallRecord& record) const {
  const auto it = node_index_.find(&record);
  KILN_CHECK(it != node_index_.end(), "layer '", record.layer->name(),
             "' is called outside this model's graph");
  return it->second;
}

std::vector<layers::LayerPtr> FunctionalGraph::layers() const {
  // Keras's Functional.layers order (map_graph in keras/src/ops/function.py), which numbers the
  // layers of weight files (dense, dense_1, ...) and lists a config's layers: a depth-first
  // walk from the outputs gives each call's post-order and each layer's first-visit index; a
  // call's depth is its distance from the outputs (a shared layer's the deepest of its calls
  // seen so far, in reverse post-order); layers go deepest first, ties by first visit.
  std::vector<const CallRecord*> post_order;
  std::map<const layers::Layer*, int64_t> first_visit;
  std::set<const CallRecord*> finished;
  std::vector<std::pair<const CallRecord*, size_t>> stack;  // a call, its next input to visit
  for (const KerasTensor& out : outputs_) {
    stack.emplace_back(out.record().get(), 0);
    while (!stack.empty()) {
      auto& [record, next] = stack.back();
      if (next == 0 && finished.contains(record)) {
        stack.pop_back();
        continue;
      }
      if (next == 0)
        first_visit.try_emplace(record->layer.get(), static_cast<int64_t>(first_visit.size()));
      if (next < record->inputs.size()) {
        const CallRecord* input = record->inputs[next++].record().get();
        stack.emplace_back(input, 0);
        continue;
      }
      finished.insert(record);
      post_order.push_back(record);
      stack.pop_back();
    }
  }
  std::map<const CallRecord*, int64_t> call_depth;
  std::map<const layers::Layer*, int64_t> layer_depth;
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    int64_t& layer = layer_depth[(*it)->layer.get()];
    const int64_t depth = std::max(call_depth[*it], layer);
    layer = depth;
    // Keras's graph also holds the ops of the mask a Masking layer computes, any(not_equal(x)),
    // which read the layer's input: two ops deep where the layer is one, they set its depth.
    const int64_t above = (*it)->layer->class_name() == "Masking" ? 2 : 1;
    for (const KerasTensor& t : (*it)->inputs) {
      int64_t& parent = call_depth[t.record().get()];
      parent = std::max(parent, depth + above);
    }
  }
  // An input no output reads comes at depth 0, before the rest of that depth.
  for (const KerasTensor& t : inputs_)
    if (layer_depth.try_emplace(t.record()->layer.get(), 0).second)
      first_visit[t.record()->layer.get()] = -1;
  std::vector<layers::LayerPtr> out;
  for (const auto& record : records_)
    if (std::find(out.begin(), out.end(), record->layer) == out.end()) out.push_back(record->layer);
  std::stable_sort(out.begin(), out.end(),
                   [&](const layers::LayerPtr& a, const layers::LayerPtr& b) {
                     const int64_t da = layer_depth.at(a.get()), db = layer_depth.at(b.get());
                     return da != db ? da > db : first_visit.at(a.get()) < first_visit.at(b.get());
                   });
  return out;
}

}  // namespace kiln
