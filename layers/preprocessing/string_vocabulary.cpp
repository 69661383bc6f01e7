#include "kiln/layers/preprocessing/string_vocabulary.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "kiln/framework/core/error.h"

namespace kiln::layers {

StringVocabulary::StringVocabulary(std::vector<std::string> terms,
                                   std::optional<std::string> mask_entry,
                                   const std::string& oov_token, int64_t oov_entries,
                                   const std::string& layer)
    : mask_(mask_entry.has_value()), oov_entries_(oov_entries) {
  if (mask_entry) {
    entries_.push_back(*mask_entry);
    index_.emplace(*mask_entry, 0);
  }
  // The OOV entries are not looked up: a token reaches them by being found nowhere else.
  entries_.insert(entries_.end(), static_cast<size_t>(oov_entries), oov_token);
  for (std::string& term : terms) {
    KILN_CHECK(!mask_entry || term != *mask_entry, layer, ": the vocabulary holds the mask token '",
               term, "'");
    KILN_CHECK(oov_entries == 0 || term != oov_token, layer,
               ": the vocabulary holds the OOV token '", term, "'");
    const bool fresh = index_.emplace(term, static_cast<int64_t>(entries_.size())).second;
    KILN_CHECK(fresh, layer, ": the vocabulary holds '", term, "' more than once");
    entries_.push_back(std::move(term));
  }
}

int64_t StringVocabulary::index_of(const std::string& token) const {
  const auto it = index_.find(token);
  if (it != index_.end()) return it->second;
  return oov_entries_ == 1 ? oov_start() : -1;
}

std::vector<std::string> StringVocabulary::terms() const {
  return {entries_.begin() + specials(), entries_.end()};
}

void TokenCounts::add_document(const std::vector<std::string>& tokens) {
  ++documents_;
  for (const std::string& token : tokens) ++counts_[token];
  if (!count_documents_) return;
  std::unordered_set<std::string_view> seen;
  for (const std::string& token : tokens)
    if (seen.insert(token).second) ++document_counts_[token];
}

std::vector<std::string> TokenCounts::vocabulary(int64_t max_terms,
                                                 const std::vector<std::string>& specials) const {
  std::vector<std::pair<int64_t, std::string_view>> ranked;
  ranked.reserve(counts_.size());
  for (const auto& [token, count] : counts_)
    if (std::find(specials.begin(), specials.end(), token) == specials.end())
      ranked.emplace_back(count, token);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  if (max_terms >= 0 && ranked.size() > static_cast<size_t>(max_terms))
    ranked.resize(static_cast<size_t>(max_terms));
  std::vector<std::string> out;
  out.reserve(ranked.size());
  for (const auto& [count, token] : ranked) out.emplace_back(token);
  return out;
}

std::vector<double> TokenCounts::idf(const std::vector<std::string>& terms) const {
  KILN_CHECK(count_documents_, "TokenCounts::idf: the documents were not counted");
  std::vector<double> out;
  out.reserve(terms.size());
  for (const std::string& term : terms) {
    const auto it = document_counts_.find(term);
    const double holding = it == document_counts_.end() ? 0.0 : static_cast<double>(it->second);
    out.push_back(std::log(1.0 + static_cast<double>(documents_) / (1.0 + holding)));
  }
  return out;
}

}  // namespace kiln::layers
