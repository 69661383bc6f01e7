#include "kiln/layers/preprocessing/string_index.h"

#include <algorithm>
#include <numeric>

#include "kiln/framework/core/error.h"

namespace kiln::layers {

StringIndex::StringIndex(StringIndexSpec spec) : spec_(std::move(spec)) {
  if (spec_.output_mode == "tf_idf" && depth() >= 0)
    set_idf(std::vector<float>(static_cast<size_t>(depth()), 0.0f));
}

void StringIndex::set_terms(std::vector<std::string> terms) {
  std::optional<std::string> mask = int_mode() ? spec_.mask_token : std::nullopt;
  StringVocabulary table(std::move(terms), std::move(mask), spec_.oov_token, spec_.num_oov_indices,
                         spec_.layer);
  KILN_CHECK(!spec_.max_tokens || table.size() <= *spec_.max_tokens, spec_.layer,
             ": the vocabulary's ", table.size(), " entries exceed max_tokens ",
             spec_.max_tokens.value_or(0));
  table_ = std::move(table);
}

void StringIndex::set_idf(const std::vector<float>& weights) {
  const Tensor value = from_vector(weights, Shape{static_cast<int64_t>(weights.size())});
  // Assigned in place when the shape holds, so a group listing the variable keeps seeing it.
  if (idf_weights_.defined() && idf_weights_.shape() == value.shape())
    idf_weights_.assign(value);
  else
    idf_weights_ = Variable(value, "idf_weights", /*trainable=*/false);
}

void StringIndex::set_vocabulary(std::vector<std::string> terms, std::vector<double> idf_weights) {
  const bool tf_idf = spec_.output_mode == "tf_idf";
  KILN_CHECK(!tf_idf || idf_weights.size() == terms.size(), spec_.layer, ": ", idf_weights.size(),
             " idf_weights for ", terms.size(), " vocabulary terms");
  set_terms(std::move(terms));
  if (!tf_idf) return;
  // Keras gives the OOV index the mean weight (it has no document count of its own) and the
  // padding up to max_tokens zeros.
  const double mean = idf_weights.empty()
                          ? 0.0
                          : std::accumulate(idf_weights.begin(), idf_weights.end(), 0.0) /
                                static_cast<double>(idf_weights.size());
  std::vector<float> weights(static_cast<size_t>(spec_.num_oov_indices), static_cast<float>(mean));
  for (const double w : idf_weights) weights.push_back(static_cast<float>(w));
  weights.resize(static_cast<size_t>(depth()), 0.0f);
  set_idf(weights);
}

void StringIndex::adapt(const TokenCounts& counts) {
  std::vector<std::string> specials{spec_.oov_token};
  if (spec_.mask_token) specials.push_back(*spec_.mask_token);
  const int64_t reserved = (int_mode() && spec_.mask_token ? 1 : 0) + spec_.num_oov_indices;
  std::vector<std::string> terms =
      counts.vocabulary(spec_.max_tokens ? *spec_.max_tokens - reserved : -1, specials);
  std::vector<double> idf;
  if (spec_.output_mode == "tf_idf") idf = counts.idf(terms);
  set_vocabulary(std::move(terms), std::move(idf));
}

int64_t StringIndex::depth() const {
  if (spec_.pad_to_max_tokens && spec_.max_tokens) return *spec_.max_tokens;
  return table_.empty() ? spec_.vocabulary_size.value_or(-1) : table_.size();
}

int64_t StringIndex::index_of(const std::string& token) const {
  if (!int_mode() && spec_.mask_token && token == *spec_.mask_token) return -1;
  const int64_t index = table_.index_of(token);
  if (index >= 0 || spec_.num_oov_indices <= 1) return index;
  const auto bucket = hash_bucket(token, static_cast<uint64_t>(spec_.num_oov_indices), spec_.salt);
  return table_.oov_start() + static_cast<int64_t>(bucket);
}

std::string StringIndex::vocabulary_text() const {
  std::string text;
  const std::vector<std::string>& entries = table_.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    KILN_CHECK(entries[i].find('\n') == std::string::npos, spec_.layer, ": the vocabulary entry '",
               entries[i], "' holds a line break, which vocabulary.txt cannot keep");
    if (i > 0) text += '\n';
    text += entries[i];
  }
  return text;
}

void StringIndex::load_vocabulary_text(const std::string& text) {
  // Keras's reading: one entry per line, trailing empty lines dropped, the special entries first.
  std::vector<std::string> entries;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    entries.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  while (!entries.empty() && entries.back().empty()) entries.pop_back();
  std::vector<std::string> specials;
  if (int_mode() && spec_.mask_token) specials.push_back(*spec_.mask_token);
  specials.insert(specials.end(), static_cast<size_t>(spec_.num_oov_indices), spec_.oov_token);
  KILN_CHECK(entries.size() >= specials.size() &&
                 std::equal(specials.begin(), specials.end(), entries.begin()),
             spec_.layer, ": vocabulary.txt does not start with the special entries (mask and ",
             "OOV tokens) this layer has");
  set_terms({entries.begin() + static_cast<std::ptrdiff_t>(specials.size()), entries.end()});
  KILN_CHECK(spec_.output_mode != "tf_idf" ||
                 (idf_weights_.defined() && idf_weights_.shape() == Shape{depth()}),
             spec_.layer, ": the loaded idf_weights do not fit vocabulary.txt's ", size(),
             " entries");
}

}  // namespace kiln::layers
