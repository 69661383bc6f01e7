#pragma once
// Wall time per planned step, summed over runs and grouped by what the step computes (op,
// output shape, fused program), to find where a training step spends its time. Off unless
// started by start() or by the environment variable KILN_PROFILE (any value but "0"), which also
// prints the table to stderr when the process exits. While off, a run pays one relaxed load.
#include <atomic>
#include <string>
#include <vector>

namespace kiln::engine::profiler {

namespace detail {
extern std::atomic<bool> enabled;
}

inline bool enabled() {
  return detail::enabled.load(std::memory_order_relaxed);
}
void start();
void stop();
void reset();

// Adds one run of a plan: labels[i] took seconds[i] (the two have equal lengths).
void record(const std::vector<std::string>& labels, const std::vector<double>& seconds);

// The table, slowest group first: total ms, share, calls, mean us, label; the groups past
// max_rows are summed into one line.
std::string report(size_t max_rows = 40);

}  // namespace kiln::engine::profiler
