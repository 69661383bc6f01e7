#pragma once
// Splits CSV text (RFC 4180: quoted fields may hold delimiters, doubled quotes and newlines) into
// records of unquoted field texts, reading its stream a block at a time: a file larger than
// memory is read in constant memory. Blank lines are skipped, a UTF-8 byte order mark and \r\n
// line ends are accepted, and each record knows the line it started on, for errors.
#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace kiln::datasets {

class CsvRecords {
 public:
  // `where` names the text in errors (a file's path). The stream must outlive the reader.
  CsvRecords(std::istream& in, char delimiter, std::string where);

  // Fills fields with the next record; false at the end of the text. An unterminated quote or
  // text after a closing quote is an error naming where:line:column.
  bool next(std::vector<std::string>& fields);

  // The line the last record started on (1-based).
  size_t line() const { return record_line_; }
  const std::string& where() const { return where_; }

 private:
  static constexpr int kEnd = -1;
  int peek();
  int get();
  bool refill();
  void plain_field(std::string& field);
  void quoted_field(std::string& field, size_t column);

  std::istream& in_;
  char delimiter_;
  std::string where_;
  std::string block_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t record_line_ = 1;
};

}  // namespace kiln::datasets
