#pragma once
// What TextVectorization and StringLookup share in their configs and files: the vocabulary as a
// config list, the vocabulary_size Keras writes beside it, and the weight group whose asset is
// an adapted vocabulary's vocabulary.txt.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/framework/core/config_fields.h"
#include "kiln/layers/layer.h"
#include "kiln/layers/preprocessing/string_index.h"

namespace kiln::layers {

// A key holding a list of strings, or null for none (a vocabulary).
template <typename Options>
ConfigField<Options> string_list_field(std::string key,
                                       std::optional<std::vector<std::string>> Options::*member) {
  return field(
      std::move(key), member,
      [](const Config& v) {
        return v.is_null() ? std::nullopt
                           : std::optional<std::vector<std::string>>(v.as_string_list());
      },
      [](const std::optional<std::vector<std::string>>& list) {
        return list ? Config(*list) : Config();
      });
}

// Refuses a vocabulary_size that differs from a given vocabulary's `size` (specials included).
void check_vocabulary_size(const std::optional<int64_t>& vocabulary_size, int64_t size,
                           const std::string& layer);

// The layer's group at `path`: tf_idf's idf_weights, and as an asset an adapted vocabulary (not
// a given one, which the config holds) saved as vocabulary.txt, loaded through `load` where it is
// given.
WeightGroup vocabulary_group(std::string path, std::string name, const StringIndex& index,
                             bool given_vocabulary, std::function<void(const std::string&)> load);

}  // namespace kiln::layers
