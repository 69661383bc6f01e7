#include "kiln/layers/preprocessing/string_hash.h"

#include <farmhash.h>
#include <highwayhash/sip_hash.h>

#include "kiln/framework/core/error.h"

namespace kiln::layers {

uint64_t hash_bucket(std::string_view bytes, uint64_t buckets, const HashSalt& salt) {
  if (!salt) return util::Fingerprint64(bytes.data(), bytes.size()) % buckets;
  const highwayhash::SipHashState::Key key{(*salt)[0], (*salt)[1]};
  return highwayhash::SipHash(key, bytes.data(), bytes.size()) % buckets;
}

HashSalt salt_from_config(const Config& value, const std::string& layer) {
  if (value.is_null()) return std::nullopt;
  // TensorFlow takes the key words as int64 attributes and reads their bits unsigned.
  if (value.is_int()) {
    const auto word = static_cast<uint64_t>(value.as_int());
    return std::array{word, word};
  }
  const std::vector<int64_t> words = value.is_list() ? value.as_int_list() : std::vector<int64_t>{};
  KILN_CHECK(words.size() == 2, value.where(), ": ", layer,
             ": salt must be an integer or a list of two integers");
  return std::array{static_cast<uint64_t>(words[0]), static_cast<uint64_t>(words[1])};
}

Config salt_to_config(const HashSalt& salt) {
  if (!salt) return Config();
  return Config(
      std::vector<int64_t>{static_cast<int64_t>((*salt)[0]), static_cast<int64_t>((*salt)[1])});
}

}  // namespace kiln::layers
