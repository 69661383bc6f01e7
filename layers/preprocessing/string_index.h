#pragma once
// What Keras's IndexLookup keeps for the string layers (TextVectorization, StringLookup): the
// vocabulary with its special entries, tf_idf's weights, and their making and saving:
// - in int mode the mask token (if any) is index 0 and the OOV token follows; in the other modes
//   only the OOV token is an entry, and a masked token counts nowhere (index -1);
// - adapt keeps the most frequent max_tokens - specials terms (TokenCounts' order), and for
//   tf_idf their idf, the OOV index the mean and any padding to max_tokens zeros;
// - the vocabulary file is Keras's vocabulary.txt: every entry, specials first, one per line;
// - tf_idf's weights, one per output index, are the variable Keras saves as idf_weights. It
//   exists as soon as the output's depth is known (a config's vocabulary_size), so a file's
//   weights load into it before its vocabulary.txt does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/framework/tensor/variable.h"
#include "kiln/layers/preprocessing/string_hash.h"
#include "kiln/layers/preprocessing/string_vocabulary.h"

namespace kiln::layers {

struct StringIndexSpec {
  std::string layer;  // "TextVectorization 'name'": names errors
  std::optional<std::string> mask_token = std::nullopt;
  // Tokens outside the vocabulary: with none, -1; with one, its index; with more, hashed among
  // them (FarmHash, or SipHash keyed by `salt`, as Keras's StringLookup).
  int64_t num_oov_indices = 1;
  HashSalt salt = std::nullopt;
  std::string oov_token = "[UNK]";
  std::optional<int64_t> max_tokens = std::nullopt;
  bool pad_to_max_tokens = false;
  std::string output_mode = "int";                        // one_hot, multi_hot, count, tf_idf
  std::optional<int64_t> vocabulary_size = std::nullopt;  // the config's, before a vocabulary
};

class StringIndex {
 public:
  explicit StringIndex(StringIndexSpec spec);
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
  // outside the vocabulary. Several OOV indices share out the others by their hash.
  int64_t index_of(const std::string& token) const;
  // tf_idf's weight per output index (undefined in the other modes, and while the depth is
  // unknown).
  const Variable& idf_weights() const { return idf_weights_; }
  bool int_mode() const { return spec_.output_mode == "int"; }

  // Keras's vocabulary.txt of an adapted vocabulary. Loading one keeps the idf weights (loaded
  // before it), which must fit the vocabulary's depth.
  std::string vocabulary_text() const;
  void load_vocabulary_text(const std::string& text);

 private:
  void set_terms(std::vector<std::string> terms);
  // Takes `weights` (one per output index) into the idf_weights variable.
  void set_idf(const std::vector<float>& weights);

  StringIndexSpec spec_;
  StringVocabulary table_;
  Variable idf_weights_;
};

}  // namespace kiln::layers
