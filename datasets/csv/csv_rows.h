#pragma once
// The good rows of a CSV source's files, in order: what the schema scan and every pass of a CSV
// dataset read (csv_source.h), so both skip the same bad rows.
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/datasets/csv/csv_records.h"
#include "kiln/datasets/csv/csv_source.h"

namespace kiln::datasets {

// A row's fields, empty ones already replaced by their column's default.
struct CsvRow {
  std::vector<std::string> fields;
  const std::string* path = nullptr;
  size_t line = 0;
};

class CsvRows {
 public:
  // Opens the first file and reads its header: the column names are known from here on.
  explicit CsvRows(const CsvSourceOptions& options);

  const std::vector<std::string>& names() const { return names_; }
  // The fields (positions) a row must have non-empty or a default for, each with its declared
  // type, if any: a field that does not parse as it makes the row bad.
  void check_fields(std::vector<std::pair<size_t, std::optional<CsvType>>> fields);

  // The next good row; false after the last file. A bad row is an error naming file:line:column,
  // or with skip_bad_rows is counted in skipped() and passed over.
  bool next(CsvRow& row);
  int64_t skipped() const { return skipped_; }

  // "data.csv:3:2 (column 'y')", for errors about a row's field.
  std::string where(const CsvRow& row, size_t field) const;

 private:
  bool open_next_file();
  std::vector<std::string> header_of_current_file();
  std::optional<std::string> problem(CsvRow& row) const;

  const CsvSourceOptions& options_;
  std::vector<std::string> names_;
  std::vector<std::pair<size_t, std::optional<CsvType>>> checked_;
  std::vector<std::optional<std::string>> defaults_;  // per field
  size_t file_ = 0;
  std::unique_ptr<std::ifstream> in_;  // on the heap: records_ refers to it, and CsvRows moves
  std::unique_ptr<CsvRecords> records_;
  int64_t skipped_ = 0;
};

// s without its leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view s);

// Whether text (trimmed of spaces) reads whole as an integer, or as a number.
bool is_integer_text(const std::string& text);
bool is_number_text(const std::string& text);
// The number in text; call after is_number_text.
double number_of(const std::string& text);

}  // namespace kiln::datasets
