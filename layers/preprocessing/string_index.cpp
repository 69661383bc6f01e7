#include "kiln/layers/preprocessing/string_index.h"

#include <algorithm>
#include <numeric>

#include "kiln/framework/core/error.h"

namespace kiln::layers {

void StringIndex::set_vocabulary(std::vector<std::string> terms, std::vector<double> idf_weights) {
  const bool tf_idf = spec_.output_mode == "tf_idf";
  KILN_CHECK(!tf_idf || idf_weights.size() == terms.size(), spec_.layer, ": ", idf_weights.size(),
             " idf_weights for ", terms.size(), " vocabulary terms");
  std::optional<std::string> mask = int_mode() ? spec_.mask_token : std::nullopt;
  std::optional<std::string> oov = spec_.oov ? std::optional(spec_.oov_token) : std::nullopt;
  StringVocabulary table(std::move(terms), std::move(mask), std::move(oov), spec_.layer);
  KILN_CHECK(!spec_.max_tokens || table.size() <= *spec_.max_tokens, spec_.layer,
             ": the vocabulary's ", table.size(), " entries exceed max_tokens ",
             spec_.max_tokens.value_or(0));
  table_ = std::move(table);
  idf_.clear();
  if (!tf_idf) return;
  // Keras gives the OOV index the mean weight (it has no document count of its own) and the
  // padding up to max_tokens zeros.
  const double mean = idf_weights.empty()
                          ? 0.0
                          : std::accumulate(idf_weights.begin(), idf_weights.end(), 0.0) /
                                static_cast<double>(idf_weights.size());
  if (spec_.oov) idf_.push_back(static_cast<float>(mean));
  for (const double w : idf_weights) idf_.push_back(static_cast<float>(w));
  idf_.resize(static_cast<size_t>(depth()), 0.0f);
}

void StringIndex::adapt(const TokenCounts& counts) {
  std::vector<std::string> specials{spec_.oov_token};
  if (spec_.mask_token) specials.push_back(*spec_.mask_token);
  const int64_t reserved = (int_mode() && spec_.mask_token ? 1 : 0) + (spec_.oov ? 1 : 0);
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
  return table_.index_of(token);
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
  if (spec_.oov) specials.push_back(spec_.oov_token);
  KILN_CHECK(entries.size() >= specials.size() &&
                 std::equal(specials.begin(), specials.end(), entries.begin()),
             spec_.layer, ": vocabulary.txt does not start with the special entries (mask and ",
             "OOV tokens) this layer has");
  set_vocabulary({entries.begin() + static_cast<std::ptrdiff_t>(specials.size()), entries.end()});
}

}  // namespace kiln::layers
