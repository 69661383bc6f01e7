#pragma once
// A StringLayer with a vocabulary (TextVectorization, StringLookup): its StringIndex, adapted or
// given, and Keras's vocabulary accessors.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/layers/preprocessing/adaptable.h"
#include "kiln/layers/preprocessing/string_index.h"
#include "kiln/layers/preprocessing/string_layer.h"

namespace kiln::layers {

class VocabularyLayer : public StringLayer, public Adaptable {
 public:
  VocabularyLayer(LayerArgs args, StringIndexSpec spec)
      : StringLayer(std::move(args)), index_(std::move(spec)) {}

  bool needs_adapt() const override { return index_.empty(); }
  using Adaptable::adapt;
  // Replaces the vocabulary (terms only) and, for tf_idf, the idf weights (one per term).
  void set_vocabulary(std::vector<std::string> terms, std::vector<double> idf_weights = {}) {
    index_.set_vocabulary(std::move(terms), std::move(idf_weights));
  }

  // Keras's get_vocabulary(): the special tokens, then the terms, one per index.
  const std::vector<std::string>& vocabulary() const { return index_.entries(); }
  int64_t vocabulary_size() const { return index_.size(); }

 protected:
  StringIndex index_;
};

}  // namespace kiln::layers
