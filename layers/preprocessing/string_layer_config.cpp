#include "kiln/layers/preprocessing/string_layer_config.h"

#include "kiln/framework/core/error.h"

namespace kiln::layers {

void check_vocabulary_size(const std::optional<int64_t>& vocabulary_size, int64_t size,
                           const std::string& layer) {
  KILN_CHECK(!vocabulary_size || *vocabulary_size == size, layer, ": vocabulary_size ",
             vocabulary_size.value_or(0), " does not match the vocabulary's ", size,
             " entries (special tokens included)");
}

WeightGroup vocabulary_group(std::string path, std::string name, const StringIndex& index,
                             bool given_vocabulary, std::function<void(const std::string&)> load) {
  WeightGroup group{std::move(path), {}, std::move(name)};
  // Keras saves tf_idf's weights whether the vocabulary was given or adapted.
  if (index.idf_weights().defined()) {
    group.variables = {index.idf_weights()};
    group.keys = {"idf_weights"};
  }
  group.save_assets = [&index, given_vocabulary]() -> AssetFiles {
    if (given_vocabulary || index.empty()) return {};
    return {{"vocabulary.txt", index.vocabulary_text()}};
  };
  if (load)
    group.load_assets = [load = std::move(load), given_vocabulary](const AssetFiles& files) {
      const auto file = files.find("vocabulary.txt");
      if (!given_vocabulary && file != files.end()) load(file->second);
    };
  return group;
}

}  // namespace kiln::layers
