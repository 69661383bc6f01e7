#pragma once
// What EarlyStopping and ReduceLROnPlateau share: a logged quantity to watch and whether lower or
// higher is better (Keras's mode "auto": higher for accuracy-like names, lower otherwise).
#include <optional>
#include <string>

#include "kiln/training/callbacks/callback.h"

namespace kiln {

enum class MonitorMode { automatic, min, max };

class Monitor {
 public:
  Monitor(std::string name, MonitorMode mode, double min_delta);

  // The monitored value in `logs`; nullopt (with a warning once) when it is missing.
  std::optional<double> value(const Logs& logs, const char* who) const;
  // Whether `current` improves on `best` by more than min_delta.
  bool improves(double current, double best) const;
  // The starting "best": +inf when lower is better, -inf otherwise.
  double worst() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool higher_is_better_;
  double min_delta_;
  mutable bool warned_ = false;
};

MonitorMode parse_monitor_mode(const std::string& mode);

}  // namespace kiln
