#include "kiln/configs/data_builder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kiln/configs/data_cache.h"
#include "kiln/configs/data_sources.h"
#include "kiln/framework/core/error.h"
#include "kiln/training/saving/atomic_write.h"

namespace kiln::configs {
namespace {

// The section's own keys, beside its source.
const std::vector<std::string> kSectionKeys{"batch_size", "shuffle", "validation_split", "limit",
                                            "cache"};
// The older form's keys: `dataset` and the packaged datasets' arguments beside it.
const std::vector<std::string> kDatasetFormKeys{"dataset", "path", "max_length",
                                                "bucket_boundaries", "pad_to_bucket_boundary"};

std::string join_names(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

struct SourceSpec {
  Config name;  // keeps its place in the file
  Config args;
};

SourceSpec source_of(const Config& data) {
  KILN_CHECK(data.is_map(), data.where(), "data must be a map with a source, as ",
             "{fashion_mnist: {}, batch_size: 32}");
  if (data.contains("dataset")) {
    std::vector<std::string> known = kSectionKeys;
    known.insert(known.end(), kDatasetFormKeys.begin(), kDatasetFormKeys.end());
    data.check_keys(known, "data");
    Config args = Config::map();
    for (const std::string& key : kDatasetFormKeys)
      if (key != "dataset" && data.contains(key)) args.set(key, data[key]);
    return {data["dataset"], args};
  }
  std::vector<std::string> sources;
  for (const auto& [key, value] : data.as_map())
    if (std::find(kSectionKeys.begin(), kSectionKeys.end(), key) == kSectionKeys.end())
      sources.push_back(key);
  if (sources.size() != 1) {
    // A misspelt section key reads as a second source: name it against every known key.
    std::vector<std::string> known = kSectionKeys;
    for (const std::string& key : sources)
      if (data_sources().contains(key)) known.push_back(key);
    data.check_keys(known, "data");
    throw Error(detail::concat(data.where(), "data needs one source (",
                               join_names(data_sources().names()), "), as {csv: {path: ...}}; got ",
                               sources.size()));
  }
  const Config& args = data[sources[0]];
  KILN_CHECK(args.is_map() || args.is_null(), args.where(), "the arguments of ", sources[0],
             " must be a map ({path: ...}), got ", args.to_json());
  return {Config(sources[0]).set_origin(data.find(sources[0])->origin()),
          args.is_null() ? Config::map() : args};
}

}  // namespace

void check_data(const Config& data) {
  const SourceSpec spec = source_of(data);
  const DataSource source = data_sources().get(spec.name.as_string(), spec.name.where());
  spec.args.check_keys(source.keys, spec.name.as_string());
  KILN_CHECK(data.get_int("batch_size", 32) > 0, data["batch_size"].where(),
             "batch_size must be positive");
  const double split = data.get_double("validation_split", 0);
  KILN_CHECK(split >= 0 && split < 1, data["validation_split"].where(),
             "validation_split must be in [0, 1)");
  check_cache(data, spec.name.as_string(), source.decodes_files);
  source.check(spec.args, data);
}

RunData build_data(const Config& data, uint64_t seed,
                   const std::optional<SavedVocabularies>& saved) {
  check_data(data);
  const SourceSpec spec = source_of(data);
  const DataSource& source = data_sources().get(spec.name.as_string());
  if (saved && source.build_with_saved)
    return source.build_with_saved(spec.args, data, seed, *saved);
  return source.build(spec.args, data, seed);
}

std::string vocabularies_path(const std::string& output_dir) {
  return (std::filesystem::path(output_dir) / "vocabularies.json").string();
}

void write_vocabularies(const datasets::CsvVocabularies& vocabularies, const std::string& path) {
  Config columns = Config::map();
  for (const auto& [column, values] : vocabularies) columns.set(column, Config(values));
  saving::write_file_atomically(path, columns.to_json());
}

std::optional<SavedVocabularies> read_vocabularies(const std::string& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  SavedVocabularies saved{path, {}};
  try {
    const Config columns = Config::from_json(text.str());
    for (const auto& [column, values] : columns.as_map())
      saved.columns.emplace(column, values.as_string_list());
  } catch (const Error& e) {
    throw Error(detail::concat(path, ": not a vocabularies file: ", e.what()));
  }
  return saved;
}

void substitute_data_facts(Config& config, const std::map<std::string, Config>& facts) {
  if (config.is_map()) {
    for (auto& [key, value] : config.as_map()) substitute_data_facts(value, facts);
  } else if (config.is_list()) {
    for (Config& value : config.as_list()) substitute_data_facts(value, facts);
  } else if (config.is_string()) {
    const std::string& s = config.as_string();
    if (s.rfind("${data.", 0) != 0 || s.back() != '}') return;
    const std::string fact = s.substr(7, s.size() - 8);
    const auto it = facts.find(fact);
    if (it == facts.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : facts) known.push_back(k);
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(
          detail::concat(config.where(), "the data has no '", fact, "' (it has: ", list, ")"));
    }
    const std::string origin = config.origin(), path = config.path();
    config = it->second;
    config.set_origin(origin);
    config.set_path(path);
  }
}

}  // namespace kiln::configs
