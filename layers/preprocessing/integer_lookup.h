#pragma once
// keras.layers.IntegerLookup over a given or adapted vocabulary: each integer's index in the
// vocabulary (after the mask index 0, when mask_token is set, and the out-of-vocabulary index),
// or with invert the vocabulary entry of each index; int64 indices, or encoded as
// CategoryEncoding does (one_hot, multi_hot, count) over vocabulary_size (or max_tokens with
// pad_to_max_tokens). Values outside the vocabulary take the OOV index (num_oov_indices 1; with 0
// they become -1, where Keras refuses them at run time). adapt keeps the max_tokens most frequent
// values (ties: the larger first, as Keras), saved as the asset vocabulary.txt as Keras saves it.
// Several OOV indices and tf_idf are not kiln's yet, and are refused naming their keys. Each
// value is compared with every entry (no hash table in the graph): meant for vocabularies of
// hundreds, not millions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/adaptable.h"

namespace kiln::layers {

struct IntegerLookupOptions {
  std::optional<int64_t> max_tokens = std::nullopt;
  int64_t num_oov_indices = 1;  // 0 or 1
  std::optional<int64_t> mask_token = std::nullopt;
  int64_t oov_token = -1;  // what invert gives for the OOV index
  // Keras writes the vocabulary's size beside an adapted one (an asset): the encoded outputs'
  // depth before the asset loads. Checked against a given vocabulary.
  std::optional<int64_t> vocabulary_size = std::nullopt;
  bool invert = false;
  std::string output_mode = "int";  // one_hot, multi_hot, count
  bool pad_to_max_tokens = false;
  KILN_LAYER_ARGS_FIELDS
};

class IntegerLookup : public Layer, public Adaptable {
  KILN_LAYER_CLASS(IntegerLookup)

 public:
  // nullopt: the vocabulary comes from adapt (or a .keras file's asset).
  explicit IntegerLookup(std::optional<std::vector<int64_t>> vocabulary,
                         IntegerLookupOptions options = {});
  static LayerPtr from_config(const Config& config);

  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext&) override;
  std::vector<TensorMeta> compute_output_spec(const std::vector<TensorMeta>& inputs) override;
  Config get_config() const override;
  // The layer's group, with an adapted vocabulary as its asset vocabulary.txt.
  std::vector<WeightGroup> weight_groups() const override;

  bool needs_adapt() const override { return !given_ && vocabulary_.empty(); }
  using Adaptable::adapt;
  void adapt(const Batches& next) override;

  // The mask token (if any), the OOV token (if any), then the vocabulary: Keras's
  // get_vocabulary(), one entry per index.
  std::vector<int64_t> vocabulary_with_specials() const;

 private:
  Tensor lookup(const Tensor& values) const;
  Tensor invert(const Tensor& indices) const;
  // The encoded outputs' last axis (-1 while unknown).
  int64_t depth() const;
  // Checks the vocabulary (no repeats, no mask token, within max_tokens) and takes it.
  void set_vocabulary(std::vector<int64_t> vocabulary);
  void load_vocabulary_text(const std::string& text);

  bool given_;
  std::vector<int64_t> vocabulary_;
  IntegerLookupOptions options_;
};

}  // namespace kiln::layers
