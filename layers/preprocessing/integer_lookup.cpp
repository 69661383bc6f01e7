#include "kiln/layers/preprocessing/integer_lookup.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/preprocessing/category_encoding.h"

namespace kiln::layers {

IntegerLookup::IntegerLookup(std::optional<std::vector<int64_t>> vocabulary,
                             IntegerLookupOptions options)
    : Layer(options.layer_args()), given_(vocabulary.has_value()), options_(std::move(options)) {
  KILN_CHECK(options_.num_oov_indices == 0 || options_.num_oov_indices == 1,
             "IntegerLookup: num_oov_indices ", options_.num_oov_indices,
             " is not supported by kiln (0 or 1)");
  check_output_mode(options_.output_mode, true, "IntegerLookup");
  KILN_CHECK(!options_.invert || options_.output_mode == "int",
             "IntegerLookup: invert works with output_mode int only");
  if (vocabulary) {
    set_vocabulary(std::move(*vocabulary));
    const auto size = static_cast<int64_t>(vocabulary_with_specials().size());
    KILN_CHECK(!options_.vocabulary_size || *options_.vocabulary_size == size,
               "IntegerLookup: vocabulary_size ", options_.vocabulary_size.value_or(0),
               " does not match the vocabulary's ", size, " (mask, OOV and entries)");
  }
}

void IntegerLookup::set_vocabulary(std::vector<int64_t> vocabulary) {
  // Each value must have one index (the lookup sums the positions a value matches).
  std::vector<int64_t> sorted = vocabulary;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  KILN_CHECK(repeated == sorted.end(), "IntegerLookup: the vocabulary holds ", *repeated,
             " more than once");
  KILN_CHECK(!options_.mask_token ||
                 !std::binary_search(sorted.begin(), sorted.end(), *options_.mask_token),
             "IntegerLookup: the vocabulary holds the mask_token ",
             options_.mask_token.value_or(0));
  vocabulary_ = std::move(vocabulary);
  const auto size = static_cast<int64_t>(vocabulary_with_specials().size());
  KILN_CHECK(!options_.max_tokens || *options_.max_tokens >= size, "IntegerLookup: max_tokens ",
             options_.max_tokens.value_or(0), " is below the vocabulary's size ", size);
}

void IntegerLookup::adapt(const Batches& next) {
  std::map<int64_t, int64_t> counts;
  while (std::optional<Tensor> batch = next())
    for (const int64_t v : ops::cast(*batch, DType::i64).to_vector<int64_t>()) ++counts[v];
  // Keras's order: by count, ties by value, the larger first; the special tokens left out.
  counts.erase(options_.oov_token);
  if (options_.mask_token) counts.erase(*options_.mask_token);
  std::vector<std::pair<int64_t, int64_t>> ranked(counts.begin(), counts.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first > b.first;
  });
  const int64_t specials = (options_.mask_token ? 1 : 0) + options_.num_oov_indices;
  if (options_.max_tokens && static_cast<int64_t>(ranked.size()) > *options_.max_tokens - specials)
    ranked.resize(static_cast<size_t>(std::max<int64_t>(*options_.max_tokens - specials, 0)));
  std::vector<int64_t> terms;
  for (const auto& [value, count] : ranked) terms.push_back(value);
  set_vocabulary(std::move(terms));
}

int64_t IntegerLookup::depth() const {
  if (options_.pad_to_max_tokens && options_.max_tokens) return *options_.max_tokens;
  if (!given_ && vocabulary_.empty()) return options_.vocabulary_size.value_or(-1);
  return static_cast<int64_t>(vocabulary_with_specials().size());
}

void IntegerLookup::load_vocabulary_text(const std::string& text) {
  std::vector<int64_t> entries;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    try {
      entries.push_back(std::stoll(line));
    } catch (const std::exception&) {
      throw Error(detail::concat("IntegerLookup '", name(), "': vocabulary.txt holds '", line,
                                 "', not an integer"));
    }
  }
  const auto specials =
      static_cast<size_t>((options_.mask_token ? 1 : 0) + options_.num_oov_indices);
  const std::vector<int64_t> all = vocabulary_with_specials();
  const std::vector<int64_t> expected(all.begin(),
                                      all.begin() + static_cast<std::ptrdiff_t>(specials));
  KILN_CHECK(
      entries.size() >= specials && std::equal(expected.begin(), expected.end(), entries.begin()),
      "IntegerLookup '", name(), "': vocabulary.txt does not start with the mask and OOV ",
      "tokens this layer has");
  set_vocabulary({entries.begin() + static_cast<std::ptrdiff_t>(specials), entries.end()});
}

std::vector<WeightGroup> IntegerLookup::weight_groups() const {
  WeightGroup group{"", {}, name()};
  group.save_assets = [this]() -> AssetFiles {
    if (given_ || vocabulary_.empty()) return {};
    std::string text;
    for (const int64_t v : vocabulary_with_specials()) {
      if (!text.empty()) text += '\n';
      text += std::to_string(v);
    }
    return {{"vocabulary.txt", text}};
  };
  // Loading through the group changes the layer, as loading a variable through a group changes
  // the variable: the groups are how a model's state is reached, const or not.
  auto* self = const_cast<IntegerLookup*>(this);
  group.load_assets = [self](const AssetFiles& files) {
    const auto file = files.find("vocabulary.txt");
    if (!self->given_ && file != files.end()) self->load_vocabulary_text(file->second);
  };
  return {group};
}

std::vector<TensorMeta> IntegerLookup::compute_output_spec(const std::vector<TensorMeta>& inputs) {
  if (depth() >= 0 || options_.output_mode == "int") return Layer::compute_output_spec(inputs);
  // Not adapted yet: the encoded axis is unknown.
  return {{dtype_policy().compute, encoded_shape(inputs.at(0).shape, -1, options_.output_mode),
           inputs[0].device}};
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
  return {encode_categories(lookup(inputs[0]), depth(), options_.output_mode,
                            dtype_policy().compute, "IntegerLookup '" + name() + "'")};
}

namespace {

using Options = IntegerLookupOptions;

struct Arguments : Options {
  std::optional<std::vector<int64_t>> vocabulary;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {field("vocabulary", &Arguments::vocabulary)},
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
          field("vocabulary_size", &Options::vocabulary_size)});
  return table;
}

}  // namespace

Config IntegerLookup::get_config() const {
  Arguments a{options_};
  if (given_) a.vocabulary = vocabulary_;
  if (!needs_adapt()) a.vocabulary_size = static_cast<int64_t>(vocabulary_with_specials().size());
  return write_fields(a, fields(), Layer::get_config());
}

LayerPtr IntegerLookup::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "IntegerLookup");
  return std::make_shared<IntegerLookup>(a.vocabulary, a);
}

}  // namespace kiln::layers
