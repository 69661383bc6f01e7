#pragma once
// Collects kiln log messages for the duration of a test.
#include <string>
#include <vector>

#include "kiln/framework/core/log.h"

namespace kiln::testing {

class LogCapture {
 public:
  LogCapture() {
    previous_level_ = log_level();
    set_log_level(LogLevel::debug);
    previous_ = set_log_sink([this](LogLevel level, std::string_view message) {
      messages.push_back({level, std::string(message)});
    });
  }
  ~LogCapture() {
    set_log_sink(previous_);
    set_log_level(previous_level_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> at(LogLevel level) const {
    std::vector<std::string> out;
    for (const auto& m : messages)
      if (m.level == level) out.push_back(m.text);
    return out;
  }

  struct Message {
    LogLevel level;
    std::string text;
  };
  std::vector<Message> messages;

 private:
  LogSink previous_;
  LogLevel previous_level_;
};

}  // namespace kiln::testing
