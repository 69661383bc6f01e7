#include "kiln/datasets/csv/csv_source.h"

#include <glob.h>

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

#include "kiln/datasets/csv/csv_rows.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln::datasets {
namespace {

// SplitMix64's finalizer: a row's index and the seed mixed into uniform bits.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Whether good row `row` belongs to `subset`.
bool in_subset(const CsvSplit& split, int64_t row, CsvSubset subset) {
  if (split.limit > 0 && row >= split.limit) return false;
  switch (subset) {
    case CsvSubset::training:
      return !split.validates(row);
    case CsvSubset::validation:
      return split.validates(row);
    case CsvSubset::all:
      break;
  }
  return true;
}

// The columns the options select: features, then the label if any, typed as declared (the
// inferred types come later).
void select(const CsvSourceOptions& options, CsvSchema& schema) {
  const std::string& path = options.paths[0];
  for (const auto& [name, type] : options.column_types)
    (void)column_index(schema.names, name, path);
  for (const auto& [name, text] : options.column_defaults)
    (void)column_index(schema.names, name, path);
  const auto column = [&](const std::string& name) {
    CsvColumn c{name, column_index(schema.names, name, path)};
    return c;
  };
  if (!options.label.empty()) schema.labels.push_back(column(options.label));
  if (!options.select_columns.empty()) {
    for (const std::string& name : options.select_columns) {
      KILN_CHECK(name != options.label, path, ": column '", name,
                 "' is the label and cannot also be a feature");
      schema.features.push_back(column(name));
    }
  } else {
    for (const std::string& name : schema.names)
      if (name != options.label) schema.features.push_back(column(name));
  }
  KILN_CHECK(!schema.features.empty(), path, ": no feature columns (columns: ", schema.names.size(),
             ", label '", options.label, "')");
}

std::vector<CsvColumn*> used_columns(CsvSchema& schema) {
  std::vector<CsvColumn*> out;
  for (CsvColumn& c : schema.features) out.push_back(&c);
  for (CsvColumn& c : schema.labels) out.push_back(&c);
  return out;
}

std::optional<CsvType> declared(const CsvSourceOptions& options, const std::string& name) {
  const auto it = options.column_types.find(name);
  return it == options.column_types.end() ? std::nullopt : std::optional(it->second);
}

CsvRows rows_of(const CsvSourceOptions& options, const CsvSchema& schema) {
  CsvRows rows(options);
  std::vector<std::pair<size_t, std::optional<CsvType>>> checked;
  for (const std::vector<CsvColumn>* group : {&schema.features, &schema.labels})
    for (const CsvColumn& c : *group) checked.emplace_back(c.field, declared(options, c.name));
  rows.check_fields(std::move(checked));
  return rows;
}

// First pass: rows, and each column's type (declared, or the narrowest its fields fit).
void infer_types(const CsvSourceOptions& options, CsvSchema& schema) {
  std::vector<CsvColumn*> columns = used_columns(schema);
  std::vector<bool> all_integers(columns.size(), true), all_numbers(columns.size(), true);
  CsvRows rows = rows_of(options, schema);
  CsvRow row;
  while (rows.next(row)) {
    ++schema.rows;
    for (size_t k = 0; k < columns.size(); ++k) {
      const std::string& text = row.fields[columns[k]->field];
      if (all_numbers[k] && !is_number_text(text)) all_numbers[k] = false;
      if (all_integers[k] && !is_integer_text(text)) all_integers[k] = false;
    }
  }
  schema.skipped = rows.skipped();
  for (size_t k = 0; k < columns.size(); ++k) {
    const std::optional<CsvType> type = declared(options, columns[k]->name);
    columns[k]->type = type              ? *type
                       : all_integers[k] ? CsvType::integer
                       : all_numbers[k]  ? CsvType::number
                                         : CsvType::string;
  }
}

// Second pass, when a column holds strings or the label is a class: the feature columns'
// training vocabularies, the label's names, an int label's classes.
void read_values(const CsvSourceOptions& options, const CsvSplit& split, CsvSchema& schema) {
  const bool int_label = !schema.labels.empty() && schema.labels[0].type == CsvType::integer;
  const bool any_string =
      std::any_of(schema.features.begin(), schema.features.end(),
                  [](const CsvColumn& c) { return c.type == CsvType::string; }) ||
      (!schema.labels.empty() && schema.labels[0].type == CsvType::string);
  if (!any_string && !int_label) return;
  std::vector<std::set<std::string>> values(schema.features.size() + 1);
  CsvRows rows = rows_of(options, schema);
  CsvRow row;
  for (int64_t index = 0; rows.next(row); ++index) {
    for (size_t k = 0; k < schema.features.size(); ++k)
      if (schema.features[k].type == CsvType::string &&
          in_subset(split, index, CsvSubset::training))
        values[k].insert(row.fields[schema.features[k].field]);
    if (schema.labels.empty()) continue;
    const CsvColumn& label = schema.labels[0];
    const std::string& text = row.fields[label.field];
    if (label.type == CsvType::string) {
      values.back().insert(text);
    } else if (int_label) {
      const double v = number_of(text);
      KILN_CHECK(v >= 0 && v < std::numeric_limits<int32_t>::max(), rows.where(row, label.field),
                 ": the label '", text, "' is no class (classes are 0, 1, ...)");
      schema.label_classes = std::max(schema.label_classes, static_cast<int64_t>(v) + 1);
    }
  }
  for (size_t k = 0; k < schema.features.size(); ++k)
    schema.features[k].vocabulary.assign(values[k].begin(), values[k].end());
  if (!schema.labels.empty() && schema.labels[0].type == CsvType::string) {
    schema.labels[0].vocabulary.assign(values.back().begin(), values.back().end());
    schema.label_classes = static_cast<int64_t>(schema.labels[0].vocabulary.size());
  }
}

// One row's features and label, as csv_source.h describes.
class RowEncoder {
 public:
  explicit RowEncoder(const CsvSchema& schema) : schema_(schema) {
    for (const std::vector<CsvColumn>* group : {&schema.features, &schema.labels})
      for (const CsvColumn& c : *group) {
        auto& index = indices_[c.name];
        for (size_t i = 0; i < c.vocabulary.size(); ++i)
          index.emplace(c.vocabulary[i], static_cast<int64_t>(i));
      }
  }

  // `rows` names the row's place in errors.
  Element encode(const CsvRows& rows, const CsvRow& row) const {
    Tensor features = zeros({schema_.feature_width()}, DType::f32, Device::cpu());
    float* out = features.data<float>();
    for (const CsvColumn& c : schema_.features) {
      const std::string& text = row.fields[c.field];
      if (c.type != CsvType::string) {
        *out++ = static_cast<float>(number_of(text));
        continue;
      }
      const auto& index = indices_.at(c.name);
      if (const auto it = index.find(text); it != index.end()) out[it->second] = 1;
      out += c.vocabulary.size();
    }
    if (schema_.labels.empty()) return {features};
    const CsvColumn& label = schema_.labels[0];
    const std::string& text = row.fields[label.field];
    if (label.type == CsvType::number)
      return {features, full({}, number_of(text), DType::f32, Device::cpu())};
    double id = 0;
    if (label.type == CsvType::string) {
      const auto& classes = indices_.at(label.name);
      const auto it = classes.find(text);
      KILN_CHECK(it != classes.end(), rows.where(row, label.field), ": the label '", text,
                 "' is none of the ", classes.size(), " classes the run trained on");
      id = static_cast<double>(it->second);
    } else {
      id = number_of(text);
    }
    return {features, full({}, id, DType::i32, Device::cpu())};
  }

 private:
  const CsvSchema& schema_;
  std::map<std::string, std::unordered_map<std::string, int64_t>> indices_;
};

}  // namespace

size_t column_index(const std::vector<std::string>& names, const std::string& name,
                    const std::string& path) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<size_t>(it - names.begin());
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  const std::string hint = did_you_mean(name, names);
  throw Error(detail::concat(path, ": no column '", name, "'", hint.empty() ? "" : "; " + hint,
                             " (columns: ", all, ")"));
}

CsvType csv_type(const std::string& name) {
  if (name == "int") return CsvType::integer;
  if (name == "float") return CsvType::number;
  if (name == "string") return CsvType::string;
  throw Error(detail::concat("unknown CSV column type '", name, "' (int, float or string)"));
}

const char* csv_type_name(CsvType type) {
  switch (type) {
    case CsvType::integer:
      return "int";
    case CsvType::number:
      return "float";
    case CsvType::string:
      break;
  }
  return "string";
}

std::vector<std::string> expand_paths(const std::vector<std::string>& patterns) {
  std::vector<std::string> paths;
  for (const std::string& pattern : patterns) {
    glob_t found{};
    const int status = glob(pattern.c_str(), 0, nullptr, &found);
    for (size_t i = 0; status == 0 && i < found.gl_pathc; ++i)
      paths.emplace_back(found.gl_pathv[i]);
    globfree(&found);
    KILN_CHECK(status == 0, "no file matches '", pattern, "'");
  }
  return paths;
}

int64_t CsvSchema::feature_width() const {
  int64_t width = 0;
  for (const CsvColumn& c : features)
    width += c.type == CsvType::string ? static_cast<int64_t>(c.vocabulary.size()) : 1;
  return width;
}

bool CsvSplit::validates(int64_t row) const {
  if (validation_split <= 0) return false;
  const uint64_t bits = mix(seed ^ mix(static_cast<uint64_t>(row)));
  return static_cast<double>(bits >> 11) * 0x1.0p-53 < validation_split;
}

CsvSchema scan_csv(const CsvSourceOptions& options, const CsvSplit& split) {
  CsvSchema schema;
  schema.names = CsvRows(options).names();
  select(options, schema);
  infer_types(options, schema);
  for (int64_t row = 0; row < schema.rows; ++row) {
    if (in_subset(split, row, CsvSubset::training)) ++schema.training_rows;
    if (in_subset(split, row, CsvSubset::validation)) ++schema.validation_rows;
  }
  read_values(options, split, schema);
  return schema;
}

CsvVocabularies csv_vocabularies(const CsvSchema& schema) {
  CsvVocabularies out;
  for (const std::vector<CsvColumn>* group : {&schema.features, &schema.labels})
    for (const CsvColumn& c : *group)
      if (c.type == CsvType::string) out.emplace(c.name, c.vocabulary);
  return out;
}

void use_csv_vocabularies(CsvSchema& schema, const CsvVocabularies& saved,
                          const std::string& from) {
  for (std::vector<CsvColumn>* group : {&schema.features, &schema.labels})
    for (CsvColumn& c : *group) {
      if (c.type != CsvType::string) continue;
      const auto it = saved.find(c.name);
      KILN_CHECK(it != saved.end(), from, ": no vocabulary for the string column '", c.name,
                 "' (did the run train on other columns?)");
      c.vocabulary = it->second;
    }
  if (!schema.labels.empty() && schema.labels[0].type == CsvType::string)
    schema.label_classes = static_cast<int64_t>(schema.labels[0].vocabulary.size());
}

Dataset csv_dataset(const CsvSourceOptions& options, const CsvSchema& schema, const CsvSplit& split,
                    CsvSubset subset) {
  // The pass's generator owns its reader; the dataset owns copies of what they read.
  auto opts = std::make_shared<const CsvSourceOptions>(options);
  auto encoder_schema = std::make_shared<const CsvSchema>(schema);
  auto encoder = std::make_shared<const RowEncoder>(*encoder_schema);
  const int64_t end = split.limit > 0 ? std::min(split.limit, schema.rows) : schema.rows;
  const int64_t size = subset == CsvSubset::training     ? schema.training_rows
                       : subset == CsvSubset::validation ? schema.validation_rows
                                                         : end;
  return Dataset::from_generator(
      [opts, encoder_schema, encoder, split, subset, end]() -> GeneratorFn {
        auto rows = std::make_shared<CsvRows>(rows_of(*opts, *encoder_schema));
        auto index = std::make_shared<int64_t>(0);
        return [encoder, rows, index, split, subset, end]() -> std::optional<Element> {
          CsvRow row;
          while (*index < end && rows->next(row))
            if (in_subset(split, (*index)++, subset)) return encoder->encode(*rows, row);
          return std::nullopt;
        };
      },
      size);
}

}  // namespace kiln::datasets
