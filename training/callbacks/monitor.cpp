#include "kiln/training/callbacks/monitor.h"

#include <cmath>
#include <limits>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/log.h"

namespace kiln {

Monitor::Monitor(std::string name, MonitorMode mode, double min_delta)
    : name_(std::move(name)), min_delta_(std::abs(min_delta)) {
  const bool accuracy_like =
      name_.find("acc") != std::string::npos || name_.find("auc") != std::string::npos ||
      name_.find("precision") != std::string::npos || name_.find("recall") != std::string::npos;
  higher_is_better_ = mode == MonitorMode::max || (mode == MonitorMode::automatic && accuracy_like);
}

std::optional<double> Monitor::value(const Logs& logs, const char* who) const {
  const auto it = logs.find(name_);
  if (it != logs.end()) return it->second;
  if (!warned_) {
    std::string present;
    for (const auto& [k, v] : logs) {
      if (!present.empty()) present += ", ";
      present += k;
    }
    log(LogLevel::warning, who, ": the monitored '", name_, "' is not in the logs (",
        present.empty() ? "none" : present, ")");
    warned_ = true;
  }
  return std::nullopt;
}

bool Monitor::improves(double current, double best) const {
  return higher_is_better_ ? current - min_delta_ > best : current + min_delta_ < best;
}

double Monitor::worst() const {
  return higher_is_better_ ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
}

MonitorMode parse_monitor_mode(const std::string& mode) {
  if (mode == "auto") return MonitorMode::automatic;
  if (mode == "min") return MonitorMode::min;
  if (mode == "max") return MonitorMode::max;
  throw Error("monitor mode must be 'auto', 'min' or 'max', got '" + mode + "'");
}

}  // namespace kiln
