#pragma once
// What Keras's IndexLookup keeps for the string layers (TextVectorization, StringLookup): the
// vocabulary with its special entries, tf_idf's weights, and their making and saving:
// - in int mode the mask token (if any) is index 0 and the OOV token follows; in the other modes
//   only the OOV token is an entry, and a masked token counts nowhere (index -1);
// - adapt keeps the most frequent max_tokens - specials terms (TokenCounts' order), and for
//   tf_idf their idf, the OOV index the mean and any padding to max_tokens zeros;
// - the vocabulary file is Keras's vocabulary.txt: every entry, specials first, one per line.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/preprocessing/string_vocabulary.h"

namespace kiln::layers {

struct StringIndexSpec {
  std::string layer;  // "TextVectorization 'name'": names errors
  std::optional<std::string> mask_token = std::nullopt;
  bool oov = true;  // num_oov_indices 1 (else 0: tokens outside the vocabulary are -1)
  std::string oov_token = "[UNK]";
  std::optional<int64_t> max_tokens = std::nullopt;
  bool pad_to_max_tokens = false;
  std::string output_mode = "int";                        // one_hot, multi_hot, count, tf_idf
  std::optional<int64_t> vocabulary_size = std::nullopt;  // the config's, before a vocabulary
};

class StringIndex {
 public:
  explicit StringIndex(StringIndexSpec spec) : spec_(std::move(spec)) {}
  // What errors name ("StringLookup 'colors'"), once the layer has its name.
  void set_layer(std::string layer) { spec_.layer = std::move(layer); }

  // Replaces the vocabulary (terms only) and, for tf_idf, the idf weights (one per term).
  void set_vocabulary(std::vector<std::string> terms, std::vector<double> idf_weights = {});
  // The vocabulary (and tf_idf's weights) of what adapt counted.
  void adapt(const TokenCounts& counts);

  bool empty() const { return table_.empty(); }
  const std::vector<std::string>& entries() const { return table_.entries(); }
  int64_t size() const { return table_.size(); }
  // The encoded outputs' last axis: max_tokens with pad_to_max_tokens, else the vocabulary's size
  // (the config's vocabulary_size before there is one; -1 when neither is known).
  int64_t depth() const;
  // A token's index; -1 for a masked token outside int mode and, without an OOV index, for one
  // outside the vocabulary.
  int64_t index_of(const std::string& token) const;
  // tf_idf's weight per output index (empty in the other modes).
  const std::vector<float>& idf() const { return idf_; }
  bool int_mode() const { return spec_.output_mode == "int"; }

  // Keras's vocabulary.txt of an adapted vocabulary.
  std::string vocabulary_text() const;
  void load_vocabulary_text(const std::string& text);

 private:
  StringIndexSpec spec_;
  StringVocabulary table_;
  std::vector<float> idf_;
};

}  // namespace kiln::layers
