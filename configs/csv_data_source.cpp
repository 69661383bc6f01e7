// {csv: {...}}: CSV files as a data source (datasets/csv/csv_source.h), with these arguments:
//   path: data.csv                # a file, a glob ("data/*.csv") or a list of them
//   label: species                # the label column (none: features only)
//   header: true                  # the first record names the columns
//   column_names: [a, b, ...]     # the names, instead of the header's or "0", "1", ...
//   skip_rows: 0                  # records skipped at the start of each file
//   delimiter: ","
//   select_columns: [a, b]        # the features, in order (default: every column but the label)
//   column_types: {a: int, b: float, c: string}   # declared; the rest are inferred
//   column_defaults: {a: 0}       # what an empty field reads as (else the row is bad)
//   on_error: raise               # or skip: bad rows are passed over and counted
// Of the first `limit` rows (all by default), each validates with probability validation_split,
// drawn from the run's seed and the row (datasets::CsvSplit): a file sorted by class splits
// evenly. Shuffling uses a buffer of up to 10,000 rows.
#include <algorithm>

#include "kiln/configs/data_cache.h"
#include "kiln/configs/data_sources.h"
#include "kiln/configs/keras_objects.h"
#include "kiln/datasets/csv/csv_rows.h"
#include "kiln/datasets/csv/csv_source.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"

namespace kiln::configs {
namespace {

constexpr size_t kShuffleBuffer = 10000;

// The arguments as CsvSourceOptions, each error pointing at its value.
datasets::CsvSourceOptions options_of(const Config& args) {
  KILN_CHECK(args.contains("path"), args.where(), "csv needs a path (a file, a glob or a list)");
  datasets::CsvSourceOptions o;
  o.paths = located(args["path"], [&] {
    return datasets::expand_paths(args["path"].is_list() ? args["path"].as_string_list()
                                                         : std::vector{args["path"].as_string()});
  });
  o.header = args.get_bool("header", true);
  if (args.contains("column_names")) o.column_names = args["column_names"].as_string_list();
  o.skip_rows = args.get_int("skip_rows", 0);
  KILN_CHECK(o.skip_rows >= 0, args["skip_rows"].where(), "skip_rows must be 0 or more");
  const std::string delimiter = args.get_string("delimiter", ",");
  KILN_CHECK(delimiter.size() == 1 && delimiter != "\"" && delimiter != "\n",
             args["delimiter"].where(),
             "delimiter must be one character other than a quote or "
             "a newline, got '",
             delimiter, "'");
  o.delimiter = delimiter[0];
  o.label = args.get_string("label", "");
  if (args.contains("select_columns")) o.select_columns = args["select_columns"].as_string_list();
  if (const Config* types = args.find("column_types"))
    for (const auto& entry : types->as_map()) {
      const Config& type = entry.second;  // lambdas cannot capture structured bindings (C++20)
      o.column_types[entry.first] =
          located(type, [&] { return datasets::csv_type(type.as_string()); });
    }
  if (const Config* defaults = args.find("column_defaults"))
    for (const auto& [name, value] : defaults->as_map())
      o.column_defaults[name] = value.is_string() ? value.as_string() : value.to_json();
  const std::string on_error = args.get_string("on_error", "raise");
  KILN_CHECK(on_error == "raise" || on_error == "skip", args["on_error"].where(),
             "on_error must be raise or skip, got '", on_error, "'");
  o.skip_bad_rows = on_error == "skip";
  return o;
}

RunData csv_with(const Config& args, const Config& data, uint64_t seed,
                 const SavedVocabularies* saved) {
  const datasets::CsvSourceOptions o = options_of(args);
  const datasets::CsvSplit split{.limit = data.get_int("limit", 0),
                                 .validation_split = data.get_double("validation_split", 0),
                                 .seed = seed};
  datasets::CsvSchema schema = located(args, [&] { return datasets::scan_csv(o, split); });
  if (saved != nullptr) datasets::use_csv_vocabularies(schema, saved->columns, saved->path);
  if (schema.skipped > 0)
    log(LogLevel::info, "csv: skipped ", schema.skipped, " bad row(s) of ", o.paths.size(),
        " file(s)");
  KILN_CHECK(schema.training_rows > 0, args["path"].where(), o.paths[0], ": no training rows (",
             schema.rows, " good rows, limit ", split.limit, ", validation_split ",
             split.validation_split, ")");
  const int64_t batch = data.get_int("batch_size", 32);
  datasets::Dataset train = cached_as_configured(
      data, datasets::csv_dataset(o, schema, split, datasets::CsvSubset::training), "");
  if (data.get_bool("shuffle", true))
    train = train.shuffle(
        std::clamp<size_t>(static_cast<size_t>(schema.training_rows), 1, kShuffleBuffer), seed);
  std::optional<datasets::Dataset> validation;
  if (split.validation_split > 0)
    validation = cached_as_configured(
                     data, datasets::csv_dataset(o, schema, split, datasets::CsvSubset::validation),
                     ".validation")
                     .batch(batch);
  std::map<std::string, Config> facts{{"num_features", Config(schema.feature_width())}};
  if (schema.label_classes > 0) facts.emplace("num_classes", Config(schema.label_classes));
  return {train.batch(batch), validation, std::nullopt, facts, datasets::csv_vocabularies(schema)};
}

RunData csv(const Config& args, const Config& data, uint64_t seed) {
  return csv_with(args, data, seed, nullptr);
}

// Checks the arguments and the first file's columns; reads no rows.
void check_csv(const Config& args, const Config&) {
  const datasets::CsvSourceOptions o = options_of(args);
  const std::vector<std::string> names =
      located(args, [&] { return datasets::CsvRows(o).names(); });
  const auto check_column = [&](const Config& at, const std::string& name) {
    located(at, [&] { return datasets::column_index(names, name, o.paths[0]); });
  };
  if (!o.label.empty()) check_column(args["label"], o.label);
  for (const std::string& name : o.select_columns) check_column(args["select_columns"], name);
  for (const auto& [name, type] : o.column_types) check_column(args["column_types"], name);
  for (const auto& [name, text] : o.column_defaults) check_column(args["column_defaults"], name);
}

}  // namespace

DataSource csv_source() {
  return {{"path", "label", "header", "column_names", "skip_rows", "delimiter", "select_columns",
           "column_types", "column_defaults", "on_error"},
          check_csv,
          csv,
          /*decodes_files=*/true,
          [](const Config& args, const Config& data, uint64_t seed,
             const SavedVocabularies& saved) { return csv_with(args, data, seed, &saved); }};
}

}  // namespace kiln::configs
