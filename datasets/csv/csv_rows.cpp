#include "kiln/datasets/csv/csv_rows.h"

#include <charconv>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// std::from_chars over the whole of text (trimmed; a leading '+' allowed).
template <typename T>
bool parses_as(const std::string& text, T& value) {
  std::string_view t = trimmed(text);
  if (t.size() > 1 && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  return ec == std::errc() && end == t.data() + t.size();
}

std::string join(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

}  // namespace

std::string_view trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

bool is_integer_text(const std::string& text) {
  int64_t value = 0;
  return parses_as(text, value);
}

bool is_number_text(const std::string& text) {
  double value = 0;
  return parses_as(text, value);
}

double number_of(const std::string& text) {
  double value = 0;
  (void)parses_as(text, value);
  return value;
}

CsvRows::CsvRows(const CsvSourceOptions& options) : options_(options) {
  KILN_CHECK(!options_.paths.empty(), "a CSV source needs at least one file");
  KILN_CHECK(open_next_file(), options_.paths[0], ": empty CSV file",
             options_.header ? ", expected a header row" : "");
}

bool CsvRows::open_next_file() {
  while (file_ < options_.paths.size()) {
    const std::string& path = options_.paths[file_];
    in_ = std::make_unique<std::ifstream>(path, std::ios::binary);
    KILN_CHECK(in_->is_open(), "cannot open CSV file ", path);
    records_ = std::make_unique<CsvRecords>(*in_, options_.delimiter, path);
    std::vector<std::string> header = header_of_current_file();
    if (names_.empty()) {
      names_ = options_.column_names.empty() ? header : options_.column_names;
      if (names_.empty()) return false;  // an empty first file without column names
      defaults_.assign(names_.size(), std::nullopt);
      for (size_t i = 0; i < names_.size(); ++i)
        if (const auto it = options_.column_defaults.find(names_[i]);
            it != options_.column_defaults.end())
          defaults_[i] = it->second;
    } else if (options_.header && options_.column_names.empty()) {
      KILN_CHECK(header.empty() || header == names_, path, ":", records_->line(), ": header (",
                 join(header), ") differs from the first file's (", join(names_), ")");
    }
    return true;
  }
  return false;
}

// Skips skip_rows records, then reads the header: the names it gives, or, without a header, the
// names "0", "1", ... for as many fields as the first record has (which stays to be read).
std::vector<std::string> CsvRows::header_of_current_file() {
  std::vector<std::string> fields;
  for (int64_t k = 0; k < options_.skip_rows; ++k)
    if (!records_->next(fields)) return {};
  if (options_.header) return records_->next(fields) ? fields : std::vector<std::string>{};
  if (!names_.empty() || !options_.column_names.empty()) return {};
  // Count the first record's fields from a second reader over the same file.
  std::ifstream peek(options_.paths[file_], std::ios::binary);
  CsvRecords first(peek, options_.delimiter, options_.paths[file_]);
  for (int64_t k = 0; k <= options_.skip_rows; ++k)
    if (!first.next(fields)) return {};
  std::vector<std::string> names;
  for (size_t i = 0; i < fields.size(); ++i) names.push_back(std::to_string(i));
  return names;
}

void CsvRows::check_fields(std::vector<std::pair<size_t, std::optional<CsvType>>> fields) {
  checked_ = std::move(fields);
}

std::string CsvRows::where(const CsvRow& row, size_t field) const {
  return detail::concat(*row.path, ":", row.line, ":", field + 1, " (column '", names_[field],
                        "')");
}

// Why a row is bad, or nullopt; fills its empty checked fields with their defaults.
std::optional<std::string> CsvRows::problem(CsvRow& row) const {
  if (row.fields.size() != names_.size())
    return detail::concat(*row.path, ":", row.line, ": expected ", names_.size(), " fields, got ",
                          row.fields.size());
  for (const auto& [field, type] : checked_) {
    std::string& text = row.fields[field];
    if (trimmed(text).empty()) {
      if (!defaults_[field])
        return detail::concat(where(row, field),
                              ": empty field (give the column a default in column_defaults)");
      text = *defaults_[field];
    }
    if (type == CsvType::integer && !is_integer_text(text))
      return detail::concat(where(row, field), ": '", text, "' is not an int");
    if (type == CsvType::number && !is_number_text(text))
      return detail::concat(where(row, field), ": '", text, "' is not a float");
  }
  return std::nullopt;
}

bool CsvRows::next(CsvRow& row) {
  while (true) {
    if (!records_->next(row.fields)) {
      ++file_;
      if (!open_next_file()) return false;
      continue;
    }
    row.path = &options_.paths[file_];
    row.line = records_->line();
    const std::optional<std::string> bad = problem(row);
    if (!bad) return true;
    KILN_CHECK(options_.skip_bad_rows, *bad, " (on_error: skip passes over such rows)");
    ++skipped_;
  }
}

}  // namespace kiln::datasets
