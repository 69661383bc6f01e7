#pragma once
// The string hashes Keras's hashing layers call through TensorFlow, bucketed as TensorFlow
// buckets them: tf.strings.to_hash_bucket_fast (FarmHash's Fingerprint64) without a salt,
// tf.strings.to_hash_bucket_strong (SipHash-2-4 keyed by the salt's two words) with one. Hashing
// uses them for every value, StringLookup for the tokens outside its vocabulary when it has
// several OOV indices.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kiln/framework/core/config.h"

namespace kiln::layers {

// Keras's salt: an int (used for both words) or two; nullopt for none.
using HashSalt = std::optional<std::array<uint64_t, 2>>;

// The bucket of `bytes` among `buckets` (>= 1).
uint64_t hash_bucket(std::string_view bytes, uint64_t buckets, const HashSalt& salt);

// A config's salt (null, an int or a list of two ints), refused naming `layer` otherwise; and
// back as Keras writes it (a list of two, or null).
HashSalt salt_from_config(const Config& value, const std::string& layer);
Config salt_to_config(const HashSalt& salt);

}  // namespace kiln::layers
