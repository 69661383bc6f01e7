#include "kiln/training/callbacks/csv_logger.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string>

#include "kiln/framework/core/error.h"
#include "kiln/training/saving/atomic_write.h"

namespace kiln {

Config CSVLogger::get_config() const {
  return Config::map()
      .set("filename", filename_)
      .set("separator", std::string(1, separator_))
      .set("append", append_);
}

CSVLogger::CSVLogger(std::string filename, char separator, bool append)
    : filename_(std::move(filename)), separator_(separator), append_(append) {}

void drop_csv_rows_from(const std::string& path, int epoch, char separator) {
  std::ifstream in(path);
  if (!in) return;  // nothing logged yet
  std::string kept, line;
  for (bool header = true; std::getline(in, line); header = false) {
    const std::string first_field = line.substr(0, line.find(separator));
    int row_epoch = 0;
    const auto [end, error] =
        std::from_chars(first_field.data(), first_field.data() + first_field.size(), row_epoch);
    if (header || error != std::errc() || row_epoch < epoch) kept += line + '\n';
  }
  in.close();
  saving::write_file_atomically(path, kept);
}

CSVLogger::~CSVLogger() {
  if (file_ != nullptr) std::fclose(file_);
}

void CSVLogger::on_train_begin(const Logs&) {
  // Appending to a file that has rows keeps its header (a resumed run continues the table).
  bool has_header = false;
  if (append_) {
    if (std::FILE* existing = std::fopen(filename_.c_str(), "r")) {
      has_header = std::fgetc(existing) != EOF;
      std::fclose(existing);
    }
  }
  file_ = std::fopen(filename_.c_str(), append_ ? "a" : "w");
  KILN_CHECK(file_ != nullptr, "CSVLogger: cannot open '", filename_, "': ", std::strerror(errno));
  keys_.clear();
  if (has_header) keys_.emplace_back();  // marks the header as written
}

void CSVLogger::on_epoch_end(int epoch, Logs& logs) {
  std::string row;
  if (keys_.empty() || (keys_.size() == 1 && keys_[0].empty())) {
    const bool write_header = keys_.empty();
    keys_.clear();
    for (const auto& [k, v] : logs) keys_.push_back(k);
    if (write_header) {
      row += "epoch";
      for (const std::string& k : keys_) row += detail::concat(separator_, k);
      row += '\n';
    }
  }
  row += std::to_string(epoch);
  char number[32];
  for (const std::string& k : keys_) {
    const auto it = logs.find(k);
    row += separator_;
    if (it == logs.end()) {
      row += "NA";
    } else {
      std::snprintf(number, sizeof number, "%.17g", it->second);
      row += number;
    }
  }
  row += '\n';
  // A row that does not reach the disk (a full disk, say) ends the run: a log silently missing
  // epochs is worse than a stopped run, whose checkpoint can resume it.
  const bool written = std::fwrite(row.data(), 1, row.size(), file_) == row.size();
  KILN_CHECK(written && std::fflush(file_) == 0, "CSVLogger: cannot write '", filename_,
             "': ", std::strerror(errno));
}

void CSVLogger::on_train_end(const Logs&) {
  if (file_ == nullptr) return;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  KILN_CHECK(closed == 0, "CSVLogger: cannot write '", filename_, "': ", std::strerror(errno));
}

}  // namespace kiln
