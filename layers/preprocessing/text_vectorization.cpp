#include "kiln/layers/preprocessing/text_vectorization.h"

#include <algorithm>
#include <numeric>

#include "kiln/framework/core/error.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/string_layer_config.h"

namespace kiln::layers {
namespace {

// Keras's aliases: "binary" is multi_hot, "tf-idf" tf_idf.
std::string canonical_mode(const std::string& mode) {
  return mode == "binary" ? "multi_hot" : mode == "tf-idf" ? "tf_idf" : mode;
}

// Keras's StringLookup inside TextVectorization: mask token "", one OOV index "[UNK]".
StringIndexSpec index_spec(const TextVectorizationOptions& o) {
  return {.mask_token = "",
          .max_tokens = o.max_tokens,
          .pad_to_max_tokens = o.pad_to_max_tokens,
          .output_mode = canonical_mode(o.output_mode),
          .vocabulary_size = o.vocabulary_size};
}

// The rows of a string input: [batch] or [batch, 1] (one string per row), [batch, k] without a
// split (k tokens per row), or a scalar (one row).
std::vector<std::vector<const std::string*>> rows_of(const Tensor& strings, bool splitting,
                                                     const std::string& layer) {
  const Shape& shape = strings.shape();
  KILN_SHAPE_CHECK(shape.rank() <= 2, layer, ": inputs are strings of rank 0, 1 or 2, got ", shape);
  KILN_SHAPE_CHECK(!splitting || shape.rank() < 2 || shape[1] == 1, layer,
                   ": to split strings into tokens the input must be [batch] or [batch, 1], got ",
                   shape);
  const int64_t rows = shape.rank() == 0 ? 1 : shape[0];
  const int64_t per_row = rows == 0 ? 0 : strings.numel() / rows;
  const std::string* p = strings.data<std::string>();
  std::vector<std::vector<const std::string*>> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < per_row; ++k)
      out[static_cast<size_t>(r)].push_back(p + r * per_row + k);
  return out;
}

}  // namespace

TextVectorization::TextVectorization(TextVectorizationOptions options)
    : VocabularyLayer(options.layer_args(), index_spec(options)),
      options_(std::move(options)),
      standardize_(parse_standardize(options_.standardize)),
      split_(parse_text_split(options_.split)) {
  const std::string what = "TextVectorization '" + name() + "'";
  index_.set_layer(what);
  options_.output_mode = canonical_mode(options_.output_mode);
  const std::string& mode = options_.output_mode;
  KILN_CHECK(mode == "int" || mode == "multi_hot" || mode == "count" || mode == "tf_idf", what,
             ": output_mode must be int, multi_hot, count or tf_idf, got '", mode, "'");
  KILN_CHECK(!options_.output_sequence_length || int_mode(), what,
             ": output_sequence_length is for output_mode int only");
  KILN_CHECK(!options_.output_sequence_length || *options_.output_sequence_length >= 1, what,
             ": output_sequence_length must be at least 1");
  KILN_CHECK(!options_.ngrams_up_to || options_.ngram_widths.empty(), what,
             ": ngrams is an int or a list of widths, not both");
  for (const int64_t w : widths())
    KILN_CHECK(w >= 1, what, ": ngram widths must be at least 1, got ", w);
  KILN_CHECK(!options_.max_tokens || *options_.max_tokens > (int_mode() ? 2 : 1), what,
             ": max_tokens must leave room for a term beside the special tokens");
  KILN_CHECK(!options_.pad_to_max_tokens || options_.max_tokens, what,
             ": pad_to_max_tokens needs max_tokens");
  KILN_CHECK(!options_.idf_weights || mode == "tf_idf", what,
             ": idf_weights are for output_mode tf_idf only");
  KILN_CHECK(!options_.vocabulary || mode != "tf_idf" || options_.idf_weights, what,
             ": a given vocabulary in output_mode tf_idf needs its idf_weights");
  if (options_.vocabulary) {
    set_vocabulary(*options_.vocabulary, options_.idf_weights.value_or(std::vector<double>{}));
    check_vocabulary_size(options_.vocabulary_size, index_.size(), what);
  }
}

std::vector<int64_t> TextVectorization::widths() const {
  if (!options_.ngrams_up_to) return options_.ngram_widths;
  std::vector<int64_t> w(static_cast<size_t>(std::max<int64_t>(*options_.ngrams_up_to, 0)));
  std::iota(w.begin(), w.end(), 1);
  return w;
}

std::vector<std::string> TextVectorization::tokens_of(const std::string& text) const {
  std::vector<std::string> tokens = split_text(standardize_text(text, standardize_), split_);
  const std::vector<int64_t> w = widths();
  return w.empty() ? tokens : ngrams(tokens, w);
}

void TextVectorization::adapt(const Batches& next) {
  TokenCounts counts(options_.output_mode == "tf_idf");
  const std::string what = "TextVectorization '" + name() + "'";
  while (std::optional<Tensor> batch = next()) {
    KILN_CHECK(batch->dtype() == DType::string, what, ": adapt reads strings, got ",
               dtype_name(batch->dtype()));
    const Tensor host = batch->device().is_cpu() ? *batch : batch->to(Device::cpu());
    for (const auto& row : rows_of(host, split_ != TextSplit::none, what)) {
      std::vector<std::string> document;
      for (const std::string* text : row)
        for (std::string& token : tokens_of(*text)) document.push_back(std::move(token));
      counts.add_document(document);
    }
  }
  index_.adapt(counts);
}

std::vector<WeightGroup> TextVectorization::weight_groups() const {
  // Loading through the group changes the layer, as loading a variable through a group changes
  // the variable: the groups are how a model's state is reached, const or not.
  auto* self = const_cast<TextVectorization*>(this);
  const bool given = options_.vocabulary.has_value();
  // Keras saves the vocabulary and idf weights twice: the layer's and its inner StringLookup's.
  return {vocabulary_group(
              "", name(), index_, given,
              [self](const std::string& text) { self->index_.load_vocabulary_text(text); }),
          vocabulary_group("_lookup_layer", "string_lookup", index_, given, nullptr)};
}

Tensor TextVectorization::encode(const Tensor& strings) const {
  const std::string what = "TextVectorization '" + name() + "'";
  KILN_CHECK(!index_.empty(), what, " has no vocabulary: adapt it to data or give one");
  const Tensor host = strings.device().is_cpu() ? strings : strings.to(Device::cpu());
  const auto rows = rows_of(host, split_ != TextSplit::none, what);
  std::vector<std::vector<int64_t>> ids(rows.size());
  // The mask token "" is index 0 in int mode and, as in Keras, counts nowhere in the others.
  for (size_t r = 0; r < rows.size(); ++r)
    for (const std::string* text : rows[r])
      for (const std::string& token : tokens_of(*text))
        if (const int64_t id = index_.index_of(token); id >= 0) ids[r].push_back(id);
  const auto n = static_cast<int64_t>(rows.size());
  const bool scalar = strings.rank() == 0;
  if (int_mode()) {
    int64_t length = options_.output_sequence_length.value_or(0);
    if (!options_.output_sequence_length)
      for (const auto& row : ids) length = std::max(length, static_cast<int64_t>(row.size()));
    Tensor out = zeros(scalar ? Shape{length} : Shape{n, length}, DType::i64, Device::cpu());
    int64_t* p = out.data<int64_t>();
    for (size_t r = 0; r < ids.size(); ++r)
      std::copy_n(ids[r].begin(), std::min<int64_t>(length, static_cast<int64_t>(ids[r].size())),
                  p + static_cast<int64_t>(r) * length);
    return out;
  }
  const int64_t d = index_.depth();
  Tensor out = zeros(scalar ? Shape{d} : Shape{n, d}, DType::f32, Device::cpu());
  float* p = out.data<float>();
  for (size_t r = 0; r < ids.size(); ++r)
    for (const int64_t id : ids[r]) {
      float& slot = p[static_cast<int64_t>(r) * d + id];
      slot = options_.output_mode == "multi_hot" ? 1.0f : slot + 1.0f;
    }
  if (options_.output_mode == "tf_idf") {
    const float* idf = index_.idf_weights().value().data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] *= idf[i % d];
  }
  return out;
}

TensorMeta TextVectorization::encoded_spec(const TensorMeta& input) const {
  const Shape& in = input.shape;
  const int64_t batch = in.rank() == 0 ? -2 : in[0];  // -2: no batch axis
  int64_t last = 0;
  DType dtype = DType::f32;
  if (int_mode()) {
    dtype = DType::i64;
    last = options_.output_sequence_length.value_or(-1);
  } else {
    last = index_.depth();
  }
  return {dtype, batch == -2 ? Shape{last} : Shape{batch, last}, Device::cpu()};
}

namespace {

using Options = TextVectorizationOptions;

// null for "" (Keras's None), the name otherwise.
ConfigField<Options> nullable_name(std::string key, std::string Options::*member) {
  return nullable(field(
      std::move(key), member,
      [](const Config& v) { return v.is_null() ? std::string() : v.as_string(); },
      [](const std::string& s) { return s.empty() ? Config() : Config(s); }));
}

// Keras's ngrams: null, an int, or a list of widths.
ConfigField<Options> ngrams_field() {
  return nullable(ConfigField<Options>{"ngrams",
                                       [](const Config& v, Options& o, std::string_view) {
                                         o.ngrams_up_to.reset();
                                         o.ngram_widths.clear();
                                         if (v.is_list())
                                           o.ngram_widths = v.as_int_list();
                                         else if (!v.is_null())
                                           o.ngrams_up_to = v.as_int();
                                       },
                                       [](const Options& o) {
                                         if (o.ngrams_up_to) return Config(*o.ngrams_up_to);
                                         if (o.ngram_widths.empty()) return Config();
                                         Config list = Config::list();
                                         for (const int64_t w : o.ngram_widths)
                                           list.push_back(Config(w));
                                         return list;
                                       }});
}

const FieldTable<Options>& fields() {
  static const FieldTable<Options> table{
      field("max_tokens", &Options::max_tokens),
      nullable_name("standardize", &Options::standardize),
      nullable_name("split", &Options::split),
      ngrams_field(),
      field("output_mode", &Options::output_mode),
      field("output_sequence_length", &Options::output_sequence_length),
      field("pad_to_max_tokens", &Options::pad_to_max_tokens),
      fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense"),
      fixed_field<Options>("ragged", Config(false), "kiln's tensors are dense"),
      string_list_field("vocabulary", &Options::vocabulary),
      field("idf_weights", &Options::idf_weights),
      fixed_field<Options>("encoding", Config("utf-8")),
      field("vocabulary_size", &Options::vocabulary_size)};
  return table;
}

}  // namespace

Config TextVectorization::get_config() const {
  Options written = options_;
  if (!index_.empty()) written.vocabulary_size = index_.size();
  return write_fields(written, fields(), Layer::get_config());
}

LayerPtr TextVectorization::from_config(const Config& c) {
  return std::make_shared<TextVectorization>(read_layer_fields(c, fields(), "TextVectorization"));
}

}  // namespace kiln::layers
