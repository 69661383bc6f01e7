#include "kiln/configs/directory_source_args.h"

#include <filesystem>

#include "kiln/configs/data_cache.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"

namespace kiln::configs {

datasets::LabeledFileOptions labeled_file_options(const Config& args, const Config& data,
                                                  uint64_t seed, const std::string& directory_key) {
  KILN_CHECK(args.contains("directory"), args.where(), "a folder source needs a directory");
  datasets::LabeledFileOptions o;
  o.directory = args[directory_key].as_string();
  const Config* labels = args.find("labels");
  if (labels != nullptr && !labels->is_null())
    KILN_CHECK(labels->as_string() == "inferred", labels->where(),
               "labels must be inferred or null, got '", labels->as_string(), "'");
  o.inferred_labels = labels == nullptr || !labels->is_null();
  const Config* mode = args.find("label_mode");
  o.label_mode = !o.inferred_labels || (mode != nullptr && mode->is_null())
                     ? datasets::LabelMode::none
                     : located(mode ? *mode : args, [&] {
                         return datasets::label_mode(args.get_string("label_mode", "int"));
                       });
  if (args.contains("class_names")) o.class_names = args["class_names"].as_string_list();
  o.shuffle = data.get_bool("shuffle", true);
  o.seed = static_cast<uint32_t>(args.get_int("seed", static_cast<int64_t>(seed)));
  o.follow_links = args.get_bool("follow_links", false);
  return o;
}

int num_parallel_calls_of(const Config& args) {
  const Config* calls = args.find("num_parallel_calls");
  if (calls == nullptr || calls->is_null()) return datasets::kAutotune;
  const int n = calls->is_string() && calls->as_string() == "autotune"
                    ? datasets::kAutotune
                    : static_cast<int>(calls->as_int());
  KILN_CHECK(n == datasets::kAutotune || n >= 1, calls->where(),
             "num_parallel_calls must be autotune or at least 1");
  return n;
}

void check_directories(const Config& args) {
  for (const char* key : {"directory", "test_directory"})
    if (args.contains(key))
      KILN_CHECK(std::filesystem::is_directory(args[key].as_string()), args[key].where(),
                 args[key].as_string(), ": no such directory");
  const Config* labels = args.find("labels");
  KILN_CHECK(labels == nullptr || !labels->is_null() || !args.contains("class_names"),
             args["class_names"].where(), "class_names needs inferred labels");
}

RunData folder_run_data(const Config& args, const Config& data, uint64_t seed,
                        std::string_view source, std::string_view what, const FolderData& folder) {
  const double split = data.get_double("validation_split", 0);
  const int64_t batch = data.get_int("batch_size", 32);
  // As Keras, a split left without examples is refused rather than trained or validated on
  // nothing.
  for (const auto subset : {datasets::Subset::training, datasets::Subset::validation}) {
    const auto [from, to] = datasets::subset_range(folder.examples, split, subset);
    KILN_CHECK(split <= 0 || from < to, args["directory"].where(), args["directory"].as_string(),
               ": validation_split ", split, " of ", folder.examples, " ", what, " leaves no ",
               subset == datasets::Subset::training ? "training" : "validation", " ", what);
  }
  datasets::Dataset train = cached_as_configured(data, folder.make(datasets::Subset::training), "");
  if (data.get_bool("shuffle", true)) train = train.shuffle(static_cast<size_t>(batch) * 8, seed);
  std::optional<datasets::Dataset> validation;
  if (split > 0)
    validation =
        cached_as_configured(data, folder.make(datasets::Subset::validation), ".validation")
            .batch(batch)
            .prefetch(2);
  std::optional<datasets::Dataset> test;
  if (folder.make_test) test = folder.make_test().batch(batch).prefetch(2);
  std::map<std::string, Config> facts;
  if (!folder.class_names.empty())
    facts.emplace("num_classes", Config(static_cast<int64_t>(folder.class_names.size())));
  log(LogLevel::info, source, ": ", folder.examples, " ", what,
      folder.class_names.empty() ? ""
                                 : " in " + std::to_string(folder.class_names.size()) + " classes");
  return {train.batch(batch).prefetch(2), validation, test, facts};
}

}  // namespace kiln::configs
