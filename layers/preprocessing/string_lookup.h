#pragma once
// keras.layers.StringLookup: strings to their indices in a vocabulary, given or adapted from data
// (string_index.h): int64 indices of the input's shape (the mask token, when set, 0; strings
// outside the vocabulary the OOV index), or encoded as CategoryEncoding encodes them (one_hot,
// multi_hot, count; tf_idf weighs the counts) over the vocabulary's size, or max_tokens with
// pad_to_max_tokens. With several OOV indices, strings outside the vocabulary share them out by
// their hash (FarmHash, or SipHash keyed by `salt`). It is a StringLayer: it runs on the host,
// before a model's traced steps. With invert it maps indices back to their entries (the OOV token
// for those outside the vocabulary): called on its own, eagerly (on a model's predictions, say),
// as its strings cannot go on through a model.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/preprocessing/string_hash.h"
#include "kiln/layers/preprocessing/vocabulary_layer.h"

namespace kiln::layers {

struct StringLookupOptions {
  std::optional<int64_t> max_tokens = std::nullopt;  // vocabulary size, special tokens included
  int64_t num_oov_indices = 1;
  HashSalt salt = std::nullopt;  // keys the OOV indices' hash (SipHash) when there are several
  std::string oov_method = "floormod";  // or farmhash: strings are hashed either way
  std::optional<std::string> mask_token = std::nullopt;
  std::string oov_token = "[UNK]";
  std::string output_mode = "int";  // one_hot, multi_hot, count, tf_idf
  bool invert = false;              // int mode only
  bool pad_to_max_tokens = false;
  // A given vocabulary (terms only) and, for tf_idf, one idf weight per term.
  std::optional<std::vector<std::string>> vocabulary = std::nullopt;
  std::optional<std::vector<double>> idf_weights = std::nullopt;
  std::optional<int64_t> vocabulary_size = std::nullopt;  // as TextVectorization's
  KILN_LAYER_ARGS_FIELDS
};

class StringLookup : public VocabularyLayer {
  KILN_LAYER_CLASS(StringLookup)

 public:
  explicit StringLookup(StringLookupOptions options = {});
  static LayerPtr from_config(const Config& config);
  Config get_config() const override;
  // Keras's layout: the layer's group, with the adapted vocabulary as its asset vocabulary.txt.
  std::vector<WeightGroup> weight_groups() const override;

  Tensor encode(const Tensor& strings) const override;
  TensorMeta encoded_spec(const TensorMeta& input) const override;
  void check_input(const TensorMeta& input) const override;

  using Adaptable::adapt;
  // Keras's adapt: every string counts; a batch is one document per row for tf_idf.
  void adapt(const Batches& next) override;

 private:
  // invert's strings for integer indices.
  Tensor entries_of(const Tensor& indices) const;

  StringLookupOptions options_;
};

}  // namespace kiln::layers
