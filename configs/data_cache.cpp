#include "kiln/configs/data_cache.h"

#include <filesystem>

#include "kiln/framework/core/error.h"

namespace kiln::configs {

void check_cache(const Config& data, const std::string& source, bool decodes_files) {
  const Config* cache = data.find("cache");
  if (cache == nullptr || cache->is_null()) return;
  KILN_CHECK(cache->is_bool() || cache->is_string(), cache->where(),
             "cache is true (memory) or a file name, got ", cache->to_json());
  KILN_CHECK(decodes_files, cache->where(), "cache: ", source,
             " holds its examples in memory or maps them already; cache is for the sources that "
             "decode files (csv, image_directory, text_directory, text_lines)");
  if (!cache->is_string()) return;
  const std::filesystem::path folder = std::filesystem::path(cache->as_string()).parent_path();
  KILN_CHECK(!cache->as_string().empty(), cache->where(), "cache: the file name is empty");
  KILN_CHECK(folder.empty() || std::filesystem::is_directory(folder), cache->where(),
             cache->as_string(), ": the cache file's folder does not exist");
}

datasets::Dataset cached_as_configured(const Config& data, datasets::Dataset examples,
                                       const std::string& suffix) {
  const Config* cache = data.find("cache");
  if (cache == nullptr || cache->is_null()) return examples;
  if (cache->is_string()) return examples.cache(cache->as_string() + suffix);
  return cache->as_bool() ? examples.cache() : examples;
}

}  // namespace kiln::configs
