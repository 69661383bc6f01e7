#pragma once
// kiln's log: one line per message, to stderr by default. Tests and applications can install
// their own sink (to collect retrace warnings, say) and pick the least severe level shown;
// KILN_LOG_LEVEL=debug|info|warning|error sets the initial level.
#include <functional>
#include <string>
#include <string_view>

#include "kiln/framework/core/error.h"

namespace kiln {

enum class LogLevel { debug, info, warning, error };

std::string_view log_level_name(LogLevel level);
LogLevel log_level();
void set_log_level(LogLevel level);

using LogSink = std::function<void(LogLevel, std::string_view)>;
// Installs sink (nullptr restores stderr); returns the previous one.
LogSink set_log_sink(LogSink sink);

void log_message(LogLevel level, std::string_view message);

template <typename... Args>
void log(LogLevel level, Args&&... args) {
  if (level >= log_level()) log_message(level, detail::concat(std::forward<Args>(args)...));
}

}  // namespace kiln
