#include "kiln/framework/core/log.h"

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>

namespace kiln {
namespace {

LogLevel initial_level() {
  const char* env = std::getenv("KILN_LOG_LEVEL");
  if (env == nullptr) return LogLevel::info;
  const std::string_view name(env);
  for (LogLevel level : {LogLevel::debug, LogLevel::info, LogLevel::warning, LogLevel::error})
    if (name == log_level_name(level)) return level;
  return LogLevel::info;
}

std::atomic<LogLevel> g_level{initial_level()};
std::mutex g_sink_mutex;
LogSink g_sink;

}  // namespace

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    case LogLevel::error:
      return "error";
  }
  return "?";
}

LogLevel log_level() {
  return g_level.load(std::memory_order_relaxed);
}

void set_log_level(LogLevel level) {
  g_level.store(level, std::memory_order_relaxed);
}

LogSink set_log_sink(LogSink sink) {
  const std::lock_guard lock(g_sink_mutex);
  std::swap(g_sink, sink);
  return sink;
}

void log_message(LogLevel level, std::string_view message) {
  const std::lock_guard lock(g_sink_mutex);
  if (g_sink) {
    g_sink(level, message);
    return;
  }
  std::cerr << "kiln " << log_level_name(level) << ": " << message << '\n';
}

}  // namespace kiln
