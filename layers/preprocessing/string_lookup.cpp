#include "kiln/layers/preprocessing/string_lookup.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"
#include "kiln/layers/preprocessing/string_layer_config.h"

namespace kiln::layers {
namespace {

StringIndexSpec index_spec(const StringLookupOptions& o) {
  return {.mask_token = o.mask_token,
          .num_oov_indices = o.num_oov_indices,
          .salt = o.salt,
          .oov_token = o.oov_token,
          .max_tokens = o.max_tokens,
          .pad_to_max_tokens = o.pad_to_max_tokens,
          .output_mode = o.output_mode,
          .vocabulary_size = o.vocabulary_size};
}

}  // namespace

StringLookup::StringLookup(StringLookupOptions options)
    : VocabularyLayer(options.layer_args(), index_spec(options)), options_(std::move(options)) {
  const std::string what = "StringLookup '" + name() + "'";
  index_.set_layer(what);
  KILN_CHECK(options_.num_oov_indices >= 0, what, ": num_oov_indices must be at least 0, got ",
             options_.num_oov_indices);
  KILN_CHECK(options_.output_mode == "tf_idf" || options_.output_mode == "int" ||
                 options_.output_mode == "one_hot" || options_.output_mode == "multi_hot" ||
                 options_.output_mode == "count",
             what, ": output_mode must be int, one_hot, multi_hot, count or tf_idf, got '",
             options_.output_mode, "'");
  KILN_CHECK(!options_.invert || options_.output_mode == "int", what,
             ": invert works with output_mode int only");
  KILN_CHECK(options_.oov_method == "floormod" || options_.oov_method == "farmhash", what,
             ": oov_method must be floormod or farmhash, got '", options_.oov_method, "'");
  KILN_CHECK(!options_.pad_to_max_tokens || options_.max_tokens, what,
             ": pad_to_max_tokens needs max_tokens");
  KILN_CHECK(!options_.idf_weights || options_.output_mode == "tf_idf", what,
             ": idf_weights are for output_mode tf_idf only");
  KILN_CHECK(!options_.vocabulary || options_.output_mode != "tf_idf" || options_.idf_weights, what,
             ": a given vocabulary in output_mode tf_idf needs its idf_weights");
  if (options_.vocabulary) {
    set_vocabulary(*options_.vocabulary, options_.idf_weights.value_or(std::vector<double>{}));
    check_vocabulary_size(options_.vocabulary_size, index_.size(), what);
  }
}

void StringLookup::adapt(const Batches& next) {
  const std::string what = "StringLookup '" + name() + "'";
  TokenCounts counts(options_.output_mode == "tf_idf");
  while (std::optional<Tensor> batch = next()) {
    KILN_CHECK(batch->dtype() == DType::string, what, ": adapt reads strings, got ",
               dtype_name(batch->dtype()));
    const Tensor host = batch->device().is_cpu() ? *batch : batch->to(Device::cpu());
    // Keras counts a batch's rows as documents: a scalar or a 1-D batch is one.
    const int64_t rows = host.rank() >= 2 ? host.dim(0) : 1;
    const int64_t per_row = rows == 0 ? 0 : host.numel() / rows;
    const std::string* p = host.data<std::string>();
    for (int64_t r = 0; r < rows; ++r)
      counts.add_document({p + r * per_row, p + (r + 1) * per_row});
  }
  index_.adapt(counts);
}

void StringLookup::check_input(const TensorMeta& input) const {
  if (!options_.invert) return StringLayer::check_input(input);
  KILN_SHAPE_CHECK(input.dtype == DType::i32 || input.dtype == DType::i64, "StringLookup '", name(),
                   "' inverts int32 or int64 indices, got ", dtype_name(input.dtype), input.shape);
}

Tensor StringLookup::entries_of(const Tensor& indices) const {
  const Tensor host =
      ops::cast(indices.device().is_cpu() ? indices : indices.to(Device::cpu()), DType::i64);
  Tensor out = Tensor::empty(host.shape(), DType::string, Device::cpu());
  const std::vector<std::string>& entries = index_.entries();
  const int64_t* in = host.data<int64_t>();
  std::string* text = out.data<std::string>();
  // Keras's inverse table: the mask index gives the mask token, a term's index the term, and
  // anything else (the OOV indices, out of range) the OOV token.
  for (int64_t i = 0; i < host.numel(); ++i)
    text[i] = in[i] >= 0 && in[i] < index_.size() ? entries[static_cast<size_t>(in[i])]
                                                  : options_.oov_token;
  return out;
}

Tensor StringLookup::encode(const Tensor& strings) const {
  const std::string what = "StringLookup '" + name() + "'";
  KILN_CHECK(!index_.empty(), what, " has no vocabulary: adapt it to data or give one");
  if (options_.invert) return entries_of(strings);
  const Tensor host = strings.device().is_cpu() ? strings : strings.to(Device::cpu());
  Tensor ids = Tensor::empty(host.shape(), DType::i64, Device::cpu());
  const std::string* in = host.data<std::string>();
  int64_t* out = ids.data<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) out[i] = index_.index_of(in[i]);
  if (options_.output_mode == "int") return ids;
  const bool tf_idf = options_.output_mode == "tf_idf";
  Tensor encoded = encode_categories(ids, index_.depth(), tf_idf ? "count" : options_.output_mode,
                                     DType::f32, what);
  return tf_idf ? encoded * index_.idf_weights().value() : encoded;
}

TensorMeta StringLookup::encoded_spec(const TensorMeta& input) const {
  KILN_CHECK(!options_.invert, "StringLookup '", name(),
             "' inverts indices to strings, which a model's traced steps cannot carry: call it on "
             "its own, on the model's outputs");
  const bool ints = options_.output_mode == "int";
  const std::string mode = options_.output_mode == "tf_idf" ? "count" : options_.output_mode;
  return {ints ? DType::i64 : DType::f32, encoded_shape(input.shape, index_.depth(), mode),
          Device::cpu()};
}

std::vector<WeightGroup> StringLookup::weight_groups() const {
  // Loading through the group changes the layer, as loading a variable through a group changes
  // the variable: the groups are how a model's state is reached, const or not.
  auto* self = const_cast<StringLookup*>(this);
  return {vocabulary_group(
      "", name(), index_, options_.vocabulary.has_value(),
      [self](const std::string& text) { self->index_.load_vocabulary_text(text); })};
}

namespace {

using Options = StringLookupOptions;

const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      field("max_tokens", &Options::max_tokens),
      field("num_oov_indices", &Options::num_oov_indices),
      nullable(field(
          "mask_token", &Options::mask_token,
          [](const Config& v) {
            return v.is_null() ? std::nullopt : std::optional<std::string>(v.as_string());
          },
          [](const std::optional<std::string>& t) { return t ? Config(*t) : Config(); })),
      field("oov_token", &Options::oov_token),
      string_list_field("vocabulary", &Options::vocabulary),
      field("idf_weights", &Options::idf_weights),
      field("invert", &Options::invert),
      field("output_mode", &Options::output_mode),
      field("pad_to_max_tokens", &Options::pad_to_max_tokens),
      fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense"),
      fixed_field<Options>("encoding", Config("utf-8")),
      field("oov_method", &Options::oov_method),
      nullable(field(
          "salt", &Options::salt,
          [](const Config& v) { return salt_from_config(v, "StringLookup"); }, salt_to_config)),
      field("vocabulary_size", &Options::vocabulary_size)};
  return table;
}

}  // namespace

Config StringLookup::get_config() const {
  Options written = options_;
  if (!index_.empty()) written.vocabulary_size = index_.size();
  return write_fields(written, fields(), Layer::get_config());
}

LayerPtr StringLookup::from_config(const Config& c) {
  return std::make_shared<StringLookup>(read_layer_fields(c, fields(), "StringLookup"));
}

}  // namespace kiln::layers
