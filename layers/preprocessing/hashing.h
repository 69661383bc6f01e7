#pragma once
// keras.layers.Hashing: each string to a bin, FarmHash's Fingerprint64 of its bytes modulo
// num_bins (tf.strings.to_hash_bucket_fast, what Keras calls), or with a salt SipHash-2-4 keyed
// by it (to_hash_bucket_strong); with a mask_value, that value is bin 0 and the others hash into
// bins 1 to num_bins - 1. Numbers hash as Keras hashes them: their decimal text, floats truncated
// to integers first. int64 bins of the input's shape, or encoded as CategoryEncoding encodes
// them (one_hot, multi_hot, count) over num_bins. It is a StringLayer: it runs on the host, a
// string input's before a model's traced steps. Numbers it hashes outside a model (eagerly, in a
// dataset's map): inside one they would be a traced step's, which has no hash kernel.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/layers/preprocessing/string_hash.h"
#include "kiln/layers/preprocessing/string_layer.h"

namespace kiln::layers {

struct HashingOptions {
  std::optional<Config> mask_value = std::nullopt;  // a string, or a number for numbers
  HashSalt salt = std::nullopt;
  std::string output_mode = "int";  // one_hot, multi_hot, count
  KILN_LAYER_ARGS_FIELDS
};

class Hashing : public StringLayer {
  KILN_LAYER_CLASS(Hashing)

 public:
  explicit Hashing(int64_t num_bins, HashingOptions options = {});
  static LayerPtr from_config(const Config& config);
  Config get_config() const override;

  Tensor encode(const Tensor& values) const override;
  TensorMeta encoded_spec(const TensorMeta& input) const override;
  // Strings, or integer and floating numbers.
  void check_input(const TensorMeta& input) const override;

 private:
  int64_t num_bins_;
  HashingOptions options_;
};

}  // namespace kiln::layers
