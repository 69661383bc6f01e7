#pragma once
// keras.layers.TextVectorization: strings to token ids or token counts. Each string is
// standardized, split into tokens and (with ngrams) extended by its ngrams (text_tokens.h); the
// tokens are looked up in the vocabulary, given or adapted from data (string_vocabulary.h), and
// encoded as output_mode says:
// - int: int64 [batch, length] token indices, 0 for padding and 1 for out-of-vocabulary tokens;
//   length is output_sequence_length (rows padded or cut) or the longest row of the batch;
// - multi_hot, count, tf_idf: float32 [batch, depth] over the vocabulary (index 0 out of
//   vocabulary), depth = max_tokens with pad_to_max_tokens, else the vocabulary's size; tf_idf
//   weighs the counts by the adapted or given idf_weights.
// Inputs are string tensors [batch] or [batch, 1], or one string (the batch axis dropped).
// It is a StringLayer: it runs on the host, before a model's traced steps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/preprocessing/text_tokens.h"
#include "kiln/layers/preprocessing/vocabulary_layer.h"

namespace kiln::layers {

struct TextVectorizationOptions {
  std::optional<int64_t> max_tokens = std::nullopt;  // vocabulary size, special tokens included
  std::string standardize = "lower_and_strip_punctuation";  // lower, strip_punctuation; "": none
  std::string split = "whitespace";                         // character; "": none
  // Keras's ngrams: an int n (widths 1..n, ngrams_up_to) or a tuple of widths (ngram_widths).
  std::optional<int64_t> ngrams_up_to = std::nullopt;
  std::vector<int64_t> ngram_widths = {};
  std::string output_mode = "int";  // multi_hot, count, tf_idf
  std::optional<int64_t> output_sequence_length = std::nullopt;
  bool pad_to_max_tokens = false;
  // A given vocabulary (terms only) and, for tf_idf, one idf weight per term.
  std::optional<std::vector<std::string>> vocabulary = std::nullopt;
  std::optional<std::vector<double>> idf_weights = std::nullopt;
  // Keras writes the vocabulary's size beside an adapted one (saved as an asset): the output's
  // depth before the asset loads. Checked against a given vocabulary.
  std::optional<int64_t> vocabulary_size = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class TextVectorization : public VocabularyLayer {
  KILN_LAYER_CLASS(TextVectorization)

 public:
  explicit TextVectorization(TextVectorizationOptions options = {});
  static LayerPtr from_config(const Config& config);
  Config get_config() const override;
  // Keras's layout: the layer's group and its StringLookup's ("_lookup_layer"), each with
  // tf_idf's idf_weights; an adapted vocabulary is the asset vocabulary.txt of both (a given one
  // is in the config).
  std::vector<WeightGroup> weight_groups() const override;

  Tensor encode(const Tensor& strings) const override;
  TensorMeta encoded_spec(const TensorMeta& input) const override;

  using Adaptable::adapt;
  // Keras's adapt: every string of every batch is a document; the vocabulary is the max_tokens
  // most frequent tokens (ties: the tokens in reverse order), and tf_idf's weights their idf.
  void adapt(const Batches& next) override;
  // The tokens of one string, as the lookup sees them.
  std::vector<std::string> tokens_of(const std::string& text) const;

 private:
  bool int_mode() const { return options_.output_mode == "int"; }
  int64_t depth() const;
  std::vector<int64_t> widths() const;

  TextVectorizationOptions options_;
  Standardize standardize_;
  TextSplit split_;
};

}  // namespace kiln::layers
