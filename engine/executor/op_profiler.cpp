#include "kiln/engine/executor/op_profiler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace kiln::engine::profiler {
namespace {

struct Group {
  double seconds = 0;
  long calls = 0;
};

// Never destroyed: the report printed at exit reads them after static destructors ran.
std::mutex& groups_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

std::map<std::string, Group>& groups() {
  static auto* g = new std::map<std::string, Group>;
  return *g;
}

bool started_by_environment() {
  const char* value = std::getenv("KILN_PROFILE");
  if (value == nullptr || std::strcmp(value, "0") == 0 || *value == '\0') return false;
  // KILN_PROFILE=all: every group, not the 40 longest (shapes that vary per batch make many).
  static const size_t rows = std::strcmp(value, "all") == 0 ? SIZE_MAX : 40;
  std::atexit([] { std::fputs(report(rows).c_str(), stderr); });
  return true;
}

}  // namespace

namespace detail {
std::atomic<bool> enabled{started_by_environment()};
}

void start() {
  detail::enabled = true;
}
void stop() {
  detail::enabled = false;
}

void reset() {
  const std::lock_guard lock(groups_mutex());
  groups().clear();
}

void record(const std::vector<std::string>& labels, const std::vector<double>& seconds) {
  const std::lock_guard lock(groups_mutex());
  for (size_t i = 0; i < labels.size(); ++i) {
    Group& g = groups()[labels[i]];
    g.seconds += seconds[i];
    ++g.calls;
  }
}

std::string report(size_t max_rows) {
  std::vector<std::pair<std::string, Group>> rows;
  {
    const std::lock_guard lock(groups_mutex());
    rows.assign(groups().begin(), groups().end());
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (const auto& r : rows) total += r.second.seconds;
  if (rows.size() > max_rows) {
    Group rest;
    const size_t others = rows.size() - max_rows;
    for (size_t i = max_rows; i < rows.size(); ++i) {
      rest.seconds += rows[i].second.seconds;
      rest.calls += rows[i].second.calls;
    }
    rows.resize(max_rows);
    rows.emplace_back(std::to_string(others) + " other groups", rest);
  }
  std::string out = "op profile (wall time of planned steps)\n";
  char line[160];
  std::snprintf(line, sizeof line, "%10s %6s %9s %10s  %s\n", "total ms", "share", "calls",
                "mean us", "step");
  out += line;
  for (const auto& [label, g] : rows) {
    std::snprintf(line, sizeof line, "%10.1f %5.1f%% %9ld %10.2f  ", g.seconds * 1e3,
                  total > 0 ? 100 * g.seconds / total : 0.0, g.calls,
                  g.calls > 0 ? g.seconds * 1e6 / static_cast<double>(g.calls) : 0.0);
    out += line;
    out += label;
    out += '\n';
  }
  std::snprintf(line, sizeof line, "%10.1f  in all\n", total * 1e3);
  out += line;
  return out;
}

}  // namespace kiln::engine::profiler
