#include "kiln/training/callbacks/csv_logger.h"

#include <cerrno>
#include <cstring>

#include "kiln/framework/core/error.h"

namespace kiln {

CSVLogger::CSVLogger(std::string filename, char separator, bool append)
    : filename_(std::move(filename)), separator_(separator), append_(append) {}

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
  if (keys_.empty() || (keys_.size() == 1 && keys_[0].empty())) {
    const bool write_header = keys_.empty();
    keys_.clear();
    for (const auto& [k, v] : logs) keys_.push_back(k);
    if (write_header) {
      std::fprintf(file_, "epoch");
      for (const std::string& k : keys_) std::fprintf(file_, "%c%s", separator_, k.c_str());
      std::fprintf(file_, "\n");
    }
  }
  std::fprintf(file_, "%d", epoch);
  for (const std::string& k : keys_) {
    const auto it = logs.find(k);
    if (it == logs.end())
      std::fprintf(file_, "%cNA", separator_);
    else
      std::fprintf(file_, "%c%.17g", separator_, it->second);
  }
  std::fprintf(file_, "\n");
  std::fflush(file_);
}

void CSVLogger::on_train_end(const Logs&) {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
}

}  // namespace kiln
