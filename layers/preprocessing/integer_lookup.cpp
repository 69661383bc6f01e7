#include "kiln/layers/preprocessing/integer_lookup.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"

namespace kiln::layers {

IntegerLookup::IntegerLookup(std::vector<int64_t> vocabulary, IntegerLookupOptions options)
    : Layer(options.layer_args()),
      vocabulary_(std::move(vocabulary)),
      options_(std::move(options)) {
  KILN_CHECK(options_.num_oov_indices == 0 || options_.num_oov_indices == 1,
             "IntegerLookup: num_oov_indices ", options_.num_oov_indices,
             " is not supported by kiln (0 or 1)");
  check_output_mode(options_.output_mode, true, "IntegerLookup");
  // Each value must have one index (the lookup sums the positions a value matches).
  std::vector<int64_t> sorted = vocabulary_;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  KILN_CHECK(repeated == sorted.end(), "IntegerLookup: the vocabulary holds ", *repeated,
             " more than once");
  KILN_CHECK(!options_.mask_token ||
                 !std::binary_search(sorted.begin(), sorted.end(), *options_.mask_token),
             "IntegerLookup: the vocabulary holds the mask_token ",
             options_.mask_token.value_or(0));
  const auto size = static_cast<int64_t>(vocabulary_with_specials().size());
  KILN_CHECK(!options_.max_tokens || *options_.max_tokens >= size, "IntegerLookup: max_tokens ",
             options_.max_tokens.value_or(0), " is below the vocabulary's size ", size);
  KILN_CHECK(!options_.invert || options_.output_mode == "int",
             "IntegerLookup: invert works with output_mode int only");
}

std::vector<int64_t> IntegerLookup::vocabulary_with_specials() const {
  std::vector<int64_t> all;
  if (options_.mask_token) all.push_back(*options_.mask_token);
  if (options_.num_oov_indices == 1) all.push_back(options_.oov_token);
  all.insert(all.end(), vocabulary_.begin(), vocabulary_.end());
  return all;
}

Tensor IntegerLookup::lookup(const Tensor& values) const {
  const Tensor x = ops::cast(values, DType::i64);
  const auto n = static_cast<int64_t>(vocabulary_.size());
  const int64_t first = (options_.mask_token ? 1 : 0) + options_.num_oov_indices;
  std::vector<int64_t> positions(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) positions[static_cast<size_t>(i)] = first + i;
  // Which entry each value equals (at most one: entries are distinct), its index, else OOV.
  const Tensor hits = ops::cast(
      ops::equal(ops::expand_dims(x, -1), from_vector(vocabulary_, {n}, DType::i64, x.device())),
      DType::i64);
  const Tensor found = ops::greater(ops::sum(hits, {-1}), 0.0);
  const Tensor index = ops::sum(hits * from_vector(positions, {n}, DType::i64, x.device()), {-1});
  const int64_t oov = options_.num_oov_indices == 1 ? (options_.mask_token ? 1 : 0) : -1;
  Tensor out = ops::where(found, index, full({}, static_cast<double>(oov), DType::i64, x.device()));
  if (options_.mask_token)
    out = ops::where(
        ops::equal(x, full({}, static_cast<double>(*options_.mask_token), DType::i64, x.device())),
        zeros({}, DType::i64, x.device()), out);
  return out;
}

Tensor IntegerLookup::invert(const Tensor& indices) const {
  const std::vector<int64_t> table = vocabulary_with_specials();
  const auto size = static_cast<double>(table.size());
  const Tensor i = ops::cast(ops::clip(ops::cast(indices, DType::f64), 0, size - 1), DType::i64);
  return ops::gather(
      from_vector(table, {static_cast<int64_t>(table.size())}, DType::i64, indices.device()), i, 0);
}

std::vector<Tensor> IntegerLookup::call(const std::vector<Tensor>& inputs, const CallContext&) {
  if (options_.invert) return {invert(inputs[0])};
  const auto size = static_cast<int64_t>(vocabulary_with_specials().size());
  const int64_t depth =
      options_.pad_to_max_tokens && options_.max_tokens ? *options_.max_tokens : size;
  return {encode_categories(lookup(inputs[0]), depth, options_.output_mode, dtype_policy().compute,
                            "IntegerLookup '" + name() + "'")};
}

namespace {

using Options = IntegerLookupOptions;

struct Arguments : Options {
  std::vector<int64_t> vocabulary;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("vocabulary", &Arguments::vocabulary))},
      FieldTable<Options>{
          field("invert", &Options::invert), field("max_tokens", &Options::max_tokens),
          field("num_oov_indices", &Options::num_oov_indices),
          field("oov_token", &Options::oov_token), field("mask_token", &Options::mask_token),
          field("output_mode", &Options::output_mode),
          read_only(fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense")),
          field("pad_to_max_tokens", &Options::pad_to_max_tokens),
          fixed_field<Options>("vocabulary_dtype", Config("int64")),
          null_field<Options>("idf_weights"),
          fixed_field<Options>("oov_method", Config("floormod")), null_field<Options>("salt"),
          // Keras writes it; it follows from the vocabulary.
          ignored_field<Options>("vocabulary_size")});
  return table;
}

}  // namespace

Config IntegerLookup::get_config() const {
  Arguments a{options_};
  a.vocabulary = vocabulary_;
  return write_fields(a, fields(), Layer::get_config())
      .set("vocabulary_size", Config(static_cast<int64_t>(vocabulary_with_specials().size())));
}

LayerPtr IntegerLookup::from_config(const Config& c) {
  KILN_CHECK(!c.contains("vocabulary") || !c["vocabulary"].is_null(), c.where(),
             "IntegerLookup: kiln takes the vocabulary as a list in the config; adapting one ",
             "from data is not implemented yet");
  const Arguments a = read_layer_fields(c, fields(), "IntegerLookup");
  auto layer = std::make_shared<IntegerLookup>(a.vocabulary, a);
  const auto size = static_cast<int64_t>(layer->vocabulary_with_specials().size());
  KILN_CHECK(!c.contains("vocabulary_size") || c["vocabulary_size"].is_null() ||
                 c["vocabulary_size"].as_int() == size,
             c.where(), "IntegerLookup: vocabulary_size ", c["vocabulary_size"].to_json(),
             " does not match the vocabulary's ", size, " (mask, OOV and entries)");
  return layer;
}

}  // namespace kiln::layers
