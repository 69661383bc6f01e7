#include "kiln/training/callbacks/progbar_logger.h"

#include <unistd.h>
#include <cmath>

namespace kiln {
namespace {

constexpr int kBarWidth = 20;

std::string format_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) > 1e-3 || v == 0 ? "%.4f" : "%.4e", v);
  return buf;
}

// "2s", "4ms", "950us": the unit Keras picks for a duration.
std::string format_duration(double seconds) {
  char buf[32];
  if (seconds >= 1 || seconds == 0)
    std::snprintf(buf, sizeof buf, "%.0fs", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0fus", seconds * 1e6);
  return buf;
}

std::string repeat(const char* glyph, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += glyph;
  return out;
}

}  // namespace

std::string ProgbarLogger::format_line(int64_t done, int64_t target, double seconds,
                                       const Logs& logs, bool finished, bool color) {
  std::string line;
  char buf[64];
  if (target > 0) {
    const int digits = static_cast<int>(std::log10(static_cast<double>(target))) + 1;
    std::snprintf(buf, sizeof buf, "%*lld/%lld", digits, static_cast<long long>(done),
                  static_cast<long long>(target));
    line += buf;
    const int filled = static_cast<int>(kBarWidth * done / target);
    line += ' ';
    if (color) line += "\x1b[32m";
    line += repeat("━", filled);
    if (color) line += "\x1b[0m\x1b[37m";
    line += repeat(color ? "━" : " ", kBarWidth - filled);
    if (color) line += "\x1b[0m";
  } else {
    line += std::to_string(done);
  }
  const double per_step = done > 0 ? seconds / static_cast<double>(done) : 0;
  // While running, the time shown is what remains; at the end, what it took.
  const double shown =
      finished || target <= 0 ? seconds : per_step * static_cast<double>(target - done);
  for (const std::string& part : {format_duration(shown), format_duration(per_step)}) {
    line += ' ';
    line += part;
  }
  line += "/step";
  for (const auto& [name, value] : logs) {
    line += " - ";
    line += name;
    line += ": ";
    line += format_value(value);
  }
  return line;
}

void ProgbarLogger::start() {
  start_ = std::chrono::steady_clock::now();
  seen_ = 0;
}

void ProgbarLogger::update(int64_t done, const Logs& logs, bool finished) {
  if (inner_) return;
  // Counted whether or not anything prints: the epoch line and on_test_begin rely on it.
  seen_ = done;
  const int verbose = params().verbose;
  if (verbose == 0 || (verbose == 2 && !finished)) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const bool terminal = verbose == 1 && isatty(fileno(out_)) != 0;
  const std::string line = format_line(done, finished && params().steps < 0 ? done : params().steps,
                                       seconds, logs, finished, terminal);
  if (verbose == 1) {
    // "\r" and clear-to-end redraw the line in place; off a terminal only the last one prints.
    if (terminal) std::fprintf(out_, "\r%s\x1b[K", line.c_str());
    if (finished) std::fprintf(out_, "%s%s\n", terminal ? "" : line.c_str(), "");
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void ProgbarLogger::on_epoch_begin(int epoch, const Logs&) {
  if (params().verbose != 0) std::fprintf(out_, "Epoch %d/%d\n", epoch + 1, params().epochs);
  start();
}

void ProgbarLogger::on_train_batch_end(int64_t batch, const Logs& logs) {
  update(batch + 1, logs, false);
}

void ProgbarLogger::on_epoch_end(int, Logs& logs) {
  update(seen_, logs, true);
}

void ProgbarLogger::on_test_begin(const Logs&) {
  // Validation inside fit reports through the epoch line's val_ entries.
  inner_ = mode_ == Mode::train && seen_ > 0;
  if (!inner_) {
    mode_ = Mode::test;
    start();
  }
}

void ProgbarLogger::on_test_batch_end(int64_t batch, const Logs& logs) {
  if (!inner_) update(batch + 1, logs, false);
}

void ProgbarLogger::on_test_end(const Logs& logs) {
  if (!inner_) update(seen_, logs, true);
  inner_ = false;
}

void ProgbarLogger::on_predict_begin(const Logs&) {
  mode_ = Mode::predict;
  start();
}

void ProgbarLogger::on_predict_batch_end(int64_t batch, const Logs& logs) {
  update(batch + 1, logs, false);
}

void ProgbarLogger::on_predict_end(const Logs& logs) {
  update(seen_, logs, true);
}

}  // namespace kiln
