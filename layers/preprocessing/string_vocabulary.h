#pragma once
// The token table behind TextVectorization (and StringLookup): the vocabulary as Keras's
// get_vocabulary() lists it, one entry per index (the mask token "" first where there is one,
// then the OOV token, then the terms), with a hash map from term to index; and the counts that
// adapt gathers to make one.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::layers {

class StringVocabulary {
 public:
  StringVocabulary() = default;
  // `terms` without the special tokens, after the mask entry (index 0) where given and
  // `oov_entries` entries of `oov_token`. Repeated terms, or one that is a special token, are
  // refused naming `layer`.
  StringVocabulary(std::vector<std::string> terms, std::optional<std::string> mask_entry,
                   const std::string& oov_token, int64_t oov_entries, const std::string& layer);

  // The index of a token: its entry's, else the OOV index where there is one, else -1 (no OOV
  // entry, or several to choose from).
  int64_t index_of(const std::string& token) const;
  // The first OOV entry's index.
  int64_t oov_start() const { return mask_ ? 1 : 0; }
  // Entries before the terms: the mask and OOV entries there are.
  int64_t specials() const { return oov_start() + oov_entries_; }
  // Entries, specials included (Keras's vocabulary_size()).
  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  const std::vector<std::string>& entries() const { return entries_; }
  // The terms alone, without the special tokens.
  std::vector<std::string> terms() const;
  bool empty() const { return entries_.empty(); }

 private:
  bool mask_ = false;
  int64_t oov_entries_ = 0;
  std::vector<std::string> entries_;
  std::unordered_map<std::string, int64_t> index_;
};

// What adapt gathers: each token's count and, for tf_idf, the documents it appears in.
class TokenCounts {
 public:
  // Documents are counted only where idf will be asked for (tf_idf): it costs a set per document.
  explicit TokenCounts(bool count_documents = false) : count_documents_(count_documents) {}
  // One document's tokens.
  void add_document(const std::vector<std::string>& tokens);
  // The most frequent `max_terms` tokens (all when negative), by count, ties broken by the
  // tokens themselves, highest first (Keras's np.lexsort order), leaving out `specials`.
  std::vector<std::string> vocabulary(int64_t max_terms,
                                      const std::vector<std::string>& specials) const;
  // Keras's idf of each term: log(1 + documents / (1 + documents holding it)).
  std::vector<double> idf(const std::vector<std::string>& terms) const;
  int64_t documents() const { return documents_; }

 private:
  std::unordered_map<std::string, int64_t> counts_;
  std::unordered_map<std::string, int64_t> document_counts_;
  int64_t documents_ = 0;
  bool count_documents_;
};

}  // namespace kiln::layers
