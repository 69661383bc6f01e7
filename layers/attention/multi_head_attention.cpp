#include "kiln/layers/attention/multi_head_attention.h"

#include <algorithm>
#include <cmath>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

// Keras's stand-in for -inf in masked softmax inputs: exp of it is exactly zero.
double large_negative(DType dtype) {
  return dtype == DType::f16 ? -3e4 : -1e9;
}

Tensor heads_slice(const Tensor& x, int64_t head, int64_t width) {
  return ops::strided_slice(x, {0, 0, head * width}, {kSliceEnd, kSliceEnd, (head + 1) * width},
                            {1, 1, 1});
}

Tensor and_mask(const Tensor& a, const Tensor& b) {
  return a.defined() ? ops::logical_and(a, b) : b;
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t num_heads, int64_t key_dim,
                                       MultiHeadAttentionOptions options)
    : Layer(options.layer_args()),
      num_heads_(num_heads),
      key_dim_(key_dim),
      options_(std::move(options)),
      seed_generator_(options_.seed, "attention_seed") {
  track_random_state(seed_generator_.state());
  KILN_CHECK(num_heads > 0 && key_dim > 0, "MultiHeadAttention: num_heads and key_dim must be ",
             "positive, got ", num_heads, " and ", key_dim);
  KILN_CHECK(options_.dropout >= 0 && options_.dropout < 1,
             "MultiHeadAttention: dropout must be in [0, 1), got ", options_.dropout);
  KILN_CHECK(options_.value_dim >= 0,
             "MultiHeadAttention: value_dim must be positive (or 0 for "
             "key_dim), got ",
             options_.value_dim);
  if (options_.value_dim == 0) options_.value_dim = key_dim;
  supports_masking_ = true;
}

MultiHeadAttention::Projection MultiHeadAttention::add_projection(const std::string& name,
                                                                  const Shape& kernel,
                                                                  const Shape& bias) {
  Projection p;
  p.kernel = add_weight(name + "/kernel", kernel, options_.kernel_initializer.get(), true,
                        options_.kernel_regularizer, options_.kernel_constraint);
  if (options_.use_bias)
    p.bias = add_weight(name + "/bias", bias, options_.bias_initializer.get(), true,
                        options_.bias_regularizer, options_.bias_constraint);
  return p;
}

void MultiHeadAttention::build(const std::vector<Shape>& shapes) {
  KILN_CHECK(shapes.size() >= 2 && shapes.size() <= 4, "layer '", name(),
             "' (MultiHeadAttention) takes query, value[, key[, attention_mask]], got ",
             shapes.size(), " inputs");
  auto last = [&](size_t i, const char* what) {
    const int64_t d = shapes[i].rank() == 3 ? shapes[i][2] : -1;
    KILN_CHECK(d > 0, "layer '", name(), "' (MultiHeadAttention): the ", what,
               " must be [batch, time, dim] with a known dim, got ", shapes[i]);
    return d;
  };
  const int64_t query_dim = last(0, "query"), value_dim = last(1, "value");
  const int64_t key_dim = shapes.size() > 2 ? last(2, "key") : value_dim;
  const int64_t out = options_.output_shape > 0 ? options_.output_shape : query_dim;
  query_ = add_projection("query", {query_dim, num_heads_, key_dim_}, {num_heads_, key_dim_});
  key_ = add_projection("key", {key_dim, num_heads_, key_dim_}, {num_heads_, key_dim_});
  value_ = add_projection("value", {value_dim, num_heads_, options_.value_dim},
                          {num_heads_, options_.value_dim});
  output_ = add_projection("attention_output", {num_heads_, options_.value_dim, out}, {out});
}

// One matmul with the kernel flattened to 2-D: x [batch, T, dim] . [dim, heads * width] for the
// input projections (the heads become column blocks), [batch, T, heads * width] . [heads *
// width, out] for the output one.
Tensor MultiHeadAttention::project(const Projection& p, const Tensor& x) const {
  const Tensor k = read(p.kernel);
  const int64_t rows = x.dim(-1);
  Tensor y = ops::matmul(x, ops::reshape(k, {rows, k.numel() / rows}));
  if (options_.use_bias) y = y + ops::reshape(read(p.bias), {p.bias.shape().numel()});
  return y;
}

// [batch, Tq, Tk] (or broadcastable) bool, or undefined when nothing is masked.
Tensor MultiHeadAttention::attention_mask(const std::vector<Tensor>& inputs,
                                          const CallContext& context, const Tensor& scores) const {
  Tensor mask;
  auto input_mask = [&](size_t i) {
    return i < context.masks.size() ? context.masks[i] : Tensor();
  };
  if (const Tensor q = input_mask(0); q.defined()) mask = ops::expand_dims(q, 2);
  for (size_t i = 1; i < std::min<size_t>(inputs.size(), 3); ++i)  // value, key
    if (const Tensor m = input_mask(i); m.defined()) mask = and_mask(mask, ops::expand_dims(m, 1));
  if (options_.use_causal_mask) {
    const Tensor rows = ops::expand_dims(ops::range_like(scores, 1), 1);
    const Tensor cols = ops::expand_dims(ops::range_like(scores, 2), 0);
    mask = and_mask(mask, ops::less_equal(cols, rows));
  }
  if (inputs.size() > 3) {
    const Tensor& given = inputs[3];
    mask = and_mask(mask, given.dtype() == DType::boolean
                              ? given
                              : ops::not_equal(given, zeros({}, given.dtype(), given.device())));
  }
  return mask;
}

std::vector<Tensor> MultiHeadAttention::call(const std::vector<Tensor>& inputs,
                                             const CallContext& context) {
  const Tensor& query_in = inputs.at(0);
  const Tensor& value_in = inputs.at(1);
  const Tensor& key_in = inputs.size() > 2 ? inputs[2] : value_in;
  const Tensor q = project(query_, query_in) * (1.0 / std::sqrt(static_cast<double>(key_dim_)));
  const Tensor k = project(key_, key_in);
  const Tensor v = project(value_, value_in);
  std::vector<Tensor> heads;
  Tensor mask;
  for (int64_t h = 0; h < num_heads_; ++h) {
    Tensor scores = ops::matmul(heads_slice(q, h, key_dim_), heads_slice(k, h, key_dim_), false,
                                true);  // [batch, Tq, Tk]
    if (h == 0) mask = attention_mask(inputs, context, scores);
    // As Keras's masked softmax: masked scores out, and masked probabilities zero (a query
    // step with every key masked, a padded one, attends to nothing).
    if (mask.defined())
      scores = ops::where(
          mask, scores, full({}, large_negative(scores.dtype()), scores.dtype(), scores.device()));
    Tensor probs = ops::softmax(scores, -1);
    if (mask.defined()) probs = ops::where(mask, probs, zeros({}, probs.dtype(), probs.device()));
    if (context.training && options_.dropout > 0) {
      const Tensor keep =
          ops::greater_equal(ops::random_uniform_like(probs, seed_generator_.next(), probs.dtype()),
                             full({}, options_.dropout, probs.dtype(), probs.device()));
      probs = ops::where(keep, probs * (1.0 / (1.0 - options_.dropout)),
                         zeros({}, probs.dtype(), probs.device()));
    }
    heads.push_back(ops::matmul(probs, heads_slice(v, h, options_.value_dim)));
  }
  return {project(output_, num_heads_ == 1 ? heads[0] : ops::concat(heads, 2))};
}

std::vector<Tensor> MultiHeadAttention::compute_mask(const std::vector<Tensor>&,
                                                     const std::vector<Tensor>& masks) {
  return {masks.empty() ? Tensor() : masks[0]};
}

std::vector<WeightGroup> MultiHeadAttention::weight_groups() const {
  std::vector<WeightGroup> out{{"", {}, name()}};
  const auto add = [&](const char* path, const Projection& p, const char* keras_name) {
    std::vector<Variable> vars{p.kernel};
    if (options_.use_bias) vars.push_back(p.bias);
    out.push_back({path, std::move(vars), keras_name});
  };
  add("query_dense", query_, "query");
  add("key_dense", key_, "key");
  add("value_dense", value_, "value");
  add("output_dense", output_, "attention_output");
  return out;
}

namespace {

using Options = MultiHeadAttentionOptions;

// Keras writes attention_axes as [1] once built, the time axis: the only axes kiln attends over,
// and what null (Keras's default) means for [batch, time, features] inputs.
ConfigField<Options> time_axis_only() {
  return {"attention_axes",
          [](const Config& axes, Options& into, std::string_view what) {
            KILN_CHECK(axes.as_int_list() == std::vector<int64_t>{1}, axes.where(), what,
                       ": attention_axes other than the time axis ([1]) are not supported");
            into.attention_axes = axes.as_int_list();
          },
          [](const Options& o) { return detail::to_config(o.attention_axes); }};
}

// Keras writes value_dim resolved (the constructor resolves it too) and output_shape as a
// one-element list (given as an int or a list), null for the query's last dim.
const FieldTable<Options>& option_fields() {
  static const FieldTable<Options> table{
      field("value_dim", &Options::value_dim),
      field("dropout", &Options::dropout),
      field("use_bias", &Options::use_bias),
      field(
          "output_shape", &Options::output_shape,
          [](const Config& s) { return s.is_list() ? s.at(0).as_int() : s.as_int(); },
          [](int64_t out) { return out > 0 ? Config(std::vector<int64_t>{out}) : Config(); }),
      time_axis_only(),
      field("use_causal_mask", &Options::use_causal_mask),
      initializer_field("kernel_initializer", &Options::kernel_initializer),
      initializer_field("bias_initializer", &Options::bias_initializer),
      regularizer_field("kernel_regularizer", &Options::kernel_regularizer),
      regularizer_field("bias_regularizer", &Options::bias_regularizer),
      activity_regularizer_field<Options>(),
      constraint_field("kernel_constraint", &Options::kernel_constraint),
      constraint_field("bias_constraint", &Options::bias_constraint),
      field("seed", &Options::seed),
      read_only(null_field<Options>("flash_attention")),
      null_field<Options>("sliding_window"),
      fixed_field<Options>("use_gate", Config(false), "gated attention is not implemented")};
  return table;
}

// The options with the required arguments.
struct Arguments : Options {
  int64_t num_heads = 0;
  int64_t key_dim = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table =
      with_options<Arguments>({required(field("num_heads", &Arguments::num_heads)),
                               required(field("key_dim", &Arguments::key_dim))},
                              option_fields());
  return table;
}

}  // namespace

Config MultiHeadAttention::get_config() const {
  Config config =
      write_fields(Arguments{options_, num_heads_, key_dim_}, fields(), Layer::get_config());
  // Keras 3 takes use_causal_mask as a call argument, and its constructor refuses the key: it is
  // written only when set, so that a Keras reader refuses the file rather than drop the mask.
  if (!options_.use_causal_mask) config.erase("use_causal_mask");
  return config;
}

LayerPtr MultiHeadAttention::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "MultiHeadAttention");
  return std::make_shared<MultiHeadAttention>(a.num_heads, a.key_dim, a);
}

}  // namespace kiln::layers
