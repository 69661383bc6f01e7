#include "kiln/datasets/csv_file.h"

#include "kiln/datasets/csv/csv_records.h"
#include "kiln/datasets/csv/csv_rows.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <type_traits>
#include <variant>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln::datasets {
namespace {

using Values = std::variant<std::vector<float>, std::vector<double>, std::vector<int32_t>,
                            std::vector<int64_t>>;

Values values_for(DType dtype, const std::string& column, const std::string& path) {
  switch (dtype) {
    case DType::f32:
      return std::vector<float>{};
    case DType::f64:
      return std::vector<double>{};
    case DType::i32:
      return std::vector<int32_t>{};
    case DType::i64:
      return std::vector<int64_t>{};
    default:
      throw Error(detail::concat(path, ": column '", column, "' cannot be read as ",
                                 dtype_name(dtype), " (CSV columns are float32, float64, int32 ",
                                 "or int64)"));
  }
}

struct Column {
  std::string name;
  size_t field;  // 0-based position in a record
  DType dtype;
  Values values;
};

// Where an error happened: "data.csv:3:2 (column 'y')".
std::string location(const std::string& path, size_t line, const Column& c) {
  return detail::concat(path, ":", line, ":", c.field + 1, " (column '", c.name, "')");
}

// Parses one field of column c into out. The error location is built only on failure.
template <typename T>
void append(std::vector<T>& out, std::string_view raw, const CsvOptions& options,
            const std::string& path, size_t line, const Column& c) {
  std::string_view text = trimmed(raw);
  if (text.empty()) {
    KILN_CHECK(options.missing_value.has_value(), location(path, line, c),
               ": empty field; set CsvOptions::missing_value to fill empty fields");
    const double fill = *options.missing_value;
    if constexpr (std::is_integral_v<T>) {
      // Converting a NaN, a fraction or an out-of-range value to an integer is not a fill.
      KILN_CHECK(std::isfinite(fill) && fill == std::trunc(fill) &&
                     fill >= static_cast<double>(std::numeric_limits<T>::min()) &&
                     fill <= static_cast<double>(std::numeric_limits<T>::max()),
                 location(path, line, c), ": empty field, and missing_value ", fill, " is not a ",
                 dtype_name(dtype_of<T>()), " value");
    }
    out.push_back(static_cast<T>(fill));
    return;
  }
  if (text.size() > 1 && text[0] == '+') text.remove_prefix(1);  // from_chars rejects '+'
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  KILN_CHECK(ec != std::errc::result_out_of_range, location(path, line, c), ": '", raw,
             "' is out of range for ", dtype_name(dtype_of<T>()));
  KILN_CHECK(ec == std::errc() && end == text.data() + text.size(), location(path, line, c),
             ": cannot parse '", raw, "' as ", dtype_name(dtype_of<T>()),
             " (leave text columns out with CsvOptions::select_columns)");
  out.push_back(value);
}

std::string join(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

size_t field_index(const std::vector<std::string>& names, const std::string& name,
                   const std::string& path) {
  size_t found = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != name) continue;
    KILN_CHECK(found == names.size(), path, ": column name '", name, "' appears twice");
    found = i;
  }
  if (found == names.size()) {
    const std::string hint = did_you_mean(name, names);
    throw Error(detail::concat(path, ": no column '", name, "'", hint.empty() ? "" : "; " + hint,
                               " (columns: ", join(names), ")"));
  }
  return found;
}

}  // namespace

const Tensor& CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return columns[i];
  throw Error(detail::concat("CsvTable: no column '", name, "' (columns: ", join(names), ")"));
}

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.is_open(), "cannot open CSV file ", path);
  CsvRecords reader(in, options.delimiter, path);
  std::vector<std::string> fields;
  const bool has_rows = reader.next(fields);
  KILN_CHECK(has_rows || !options.header, path, ": empty CSV file, expected a header row");

  std::vector<std::string> names;
  if (options.header) {
    names = fields;
  } else {
    for (size_t i = 0; i < fields.size(); ++i) names.push_back(std::to_string(i));
  }
  for (const auto& entry : options.column_dtypes) (void)field_index(names, entry.first, path);

  std::vector<Column> columns;
  auto add_column = [&](size_t field) {
    const auto typed = options.column_dtypes.find(names[field]);
    const DType dtype =
        typed == options.column_dtypes.end() ? options.default_dtype : typed->second;
    columns.push_back({names[field], field, dtype, values_for(dtype, names[field], path)});
  };
  if (options.select_columns.empty()) {
    for (size_t i = 0; i < names.size(); ++i) add_column(i);
  } else {
    for (const std::string& name : options.select_columns)
      add_column(field_index(names, name, path));
  }

  // Without a header the first record, read above, is already data.
  for (bool have = options.header ? reader.next(fields) : has_rows; have;
       have = reader.next(fields)) {
    KILN_CHECK(fields.size() == names.size(), path, ":", reader.line(), ": expected ", names.size(),
               " fields", options.header ? " (as in the header)" : "", ", got ", fields.size());
    for (Column& c : columns)
      std::visit([&](auto& out) { append(out, fields[c.field], options, path, reader.line(), c); },
                 c.values);
  }

  CsvTable table;
  for (Column& c : columns) {
    table.names.push_back(c.name);
    table.columns.push_back(std::visit(
        [](const auto& values) {
          using T = typename std::decay_t<decltype(values)>::value_type;
          // from_vector would memcpy from the null data() of an empty vector.
          if (values.empty()) return Tensor::empty({0}, dtype_of<T>(), Device::cpu());
          return from_vector(values, {static_cast<int64_t>(values.size())}, dtype_of<T>(),
                             Device::cpu());
        },
        c.values));
  }
  return table;
}

}  // namespace kiln::datasets
