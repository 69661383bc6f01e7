#include "kiln/datasets/csv/csv_records.h"

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;

}  // namespace

CsvRecords::CsvRecords(std::istream& in, char delimiter, std::string where)
    : in_(in), delimiter_(delimiter), where_(std::move(where)) {
  // A UTF-8 byte order mark starts some exported files; it is no part of the first field.
  if (refill() && block_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool CsvRecords::refill() {
  block_.erase(0, pos_);
  pos_ = 0;
  const size_t kept = block_.size();
  block_.resize(kept + kBlockBytes);
  in_.read(block_.data() + kept, static_cast<std::streamsize>(kBlockBytes));
  block_.resize(kept + static_cast<size_t>(in_.gcount()));
  return block_.size() > kept;
}

int CsvRecords::peek() {
  if (pos_ == block_.size() && !refill()) return kEnd;
  return static_cast<unsigned char>(block_[pos_]);
}

int CsvRecords::get() {
  const int c = peek();
  if (c != kEnd) ++pos_;
  return c;
}

bool CsvRecords::next(std::vector<std::string>& fields) {
  fields.clear();
  for (int c = peek(); c == '\n' || c == '\r'; c = peek())
    if (get() == '\n') ++line_;
  if (peek() == kEnd) return false;
  record_line_ = line_;
  while (true) {
    fields.emplace_back();
    if (peek() == '"')
      quoted_field(fields.back(), fields.size());
    else
      plain_field(fields.back());
    const int c = get();
    if (c == static_cast<unsigned char>(delimiter_)) continue;
    if (c == '\r' && peek() == '\n') get();
    if (c == '\n' || c == '\r') ++line_;
    return true;
  }
}

void CsvRecords::plain_field(std::string& field) {
  // Scans the block for the field's end; a field that runs past the block takes the next one.
  while (true) {
    size_t end = pos_;
    while (end < block_.size() && block_[end] != delimiter_ && block_[end] != '\n' &&
           block_[end] != '\r')
      ++end;
    field.append(block_, pos_, end - pos_);
    pos_ = end;
    if (pos_ < block_.size() || !refill()) return;
  }
}

// A field in double quotes: "" is a literal quote; delimiters and newlines are data.
void CsvRecords::quoted_field(std::string& field, size_t column) {
  const size_t start_line = line_;
  get();  // the opening quote
  while (true) {
    const int c = get();
    KILN_CHECK(c != kEnd, where_, ":", start_line, ":", column, ": quoted field never closed");
    if (c == '"') {
      if (peek() != '"') break;
      get();
    } else if (c == '\n') {
      ++line_;
    }
    field += static_cast<char>(c);  // a doubled quote adds one
  }
  const int after = peek();
  KILN_CHECK(after == kEnd || after == static_cast<unsigned char>(delimiter_) || after == '\n' ||
                 after == '\r',
             where_, ":", line_, ":", column, ": text after the closing quote of \"", field, "\"");
}

}  // namespace kiln::datasets
