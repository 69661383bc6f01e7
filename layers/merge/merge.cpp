#include "kiln/layers/merge/merge.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

// inputs[0] op inputs[1] op ... from the left.
template <typename Op>
Tensor fold(const std::vector<Tensor>& inputs, Op op) {
  Tensor out = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) out = op(out, inputs[i]);
  return out;
}

}  // namespace

std::vector<Tensor> Merge::call(const std::vector<Tensor>& inputs, const CallContext&) {
  KILN_CHECK(!inputs.empty(), "a merge layer needs a list of at least one input");
  // Inputs of lower rank gain axes after the batch axis, as in Keras: [B, C] merges with
  // [B, T, C] as [B, 1, C], never lining its batch axis up with T.
  int rank = 0;
  for (const Tensor& x : inputs) rank = std::max(rank, x.rank());
  std::vector<Tensor> same_rank = inputs;
  for (Tensor& x : same_rank)
    while (x.rank() < rank) x = ops::expand_dims(x, 1);
  return {merge(same_rank)};
}

std::vector<Tensor> Merge::compute_mask(const std::vector<Tensor>&,
                                        const std::vector<Tensor>& masks) {
  if (masks.empty()) return {};
  Tensor out;
  for (const Tensor& m : masks) {
    // An unmasked input keeps every step, so the union is unmasked too.
    if (!m.defined()) return {};
    out = out.defined() ? ops::logical_or(out, m) : m;
  }
  return {out};
}

MergeOptions Merge::options_of(const Config& c, std::string_view class_name) {
  return read_layer_fields<MergeOptions>(c, class_name);
}

Tensor Add::merge(const std::vector<Tensor>& inputs) const {
  return fold(inputs, [](const Tensor& a, const Tensor& b) { return a + b; });
}

Tensor Subtract::merge(const std::vector<Tensor>& inputs) const {
  KILN_CHECK(inputs.size() == 2, "Subtract takes exactly 2 inputs, got ", inputs.size());
  return inputs[0] - inputs[1];
}

Tensor Multiply::merge(const std::vector<Tensor>& inputs) const {
  return fold(inputs, [](const Tensor& a, const Tensor& b) { return a * b; });
}

Tensor Average::merge(const std::vector<Tensor>& inputs) const {
  const Tensor sum = fold(inputs, [](const Tensor& a, const Tensor& b) { return a + b; });
  return sum / static_cast<double>(inputs.size());
}

Tensor Maximum::merge(const std::vector<Tensor>& inputs) const {
  return fold(inputs, [](const Tensor& a, const Tensor& b) { return ops::maximum(a, b); });
}

LayerPtr Add::from_config(const Config& c) {
  return std::make_shared<Add>(options_of(c, "Add"));
}
LayerPtr Subtract::from_config(const Config& c) {
  return std::make_shared<Subtract>(options_of(c, "Subtract"));
}
LayerPtr Multiply::from_config(const Config& c) {
  return std::make_shared<Multiply>(options_of(c, "Multiply"));
}
LayerPtr Average::from_config(const Config& c) {
  return std::make_shared<Average>(options_of(c, "Average"));
}
LayerPtr Maximum::from_config(const Config& c) {
  return std::make_shared<Maximum>(options_of(c, "Maximum"));
}

}  // namespace kiln::layers
