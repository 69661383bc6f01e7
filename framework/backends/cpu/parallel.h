#pragma once
// One threading runtime for the whole process: OpenMP, which oneDNN uses too. Mixing it with a
// second pool oversubscribes the cores.
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace kiln::cpu {

// Below this many elements a loop runs on the calling thread: waking the pool costs more.
inline constexpr int64_t kParallelGrain = 32768;

// Splits [0, n) into one contiguous chunk per thread and calls fn(begin, end) for each. Long
// ranges are cut at multiples of 64 items so chunks of float data start on cache lines; short
// ranges of heavy items (rows) are cut evenly so every thread gets some.
template <typename Fn>
void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= grain || omp_in_parallel() || omp_get_max_threads() == 1) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  const auto threads =
      static_cast<int>(std::min<int64_t>(omp_get_max_threads(), (n + grain - 1) / grain));
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t even = (n + nt - 1) / nt;
    const int64_t chunk = even >= 64 ? (even + 63) / 64 * 64 : even;
    const int64_t begin = std::min(n, t * chunk);
    const int64_t end = std::min(n, begin + chunk);
    if (begin < end) fn(begin, end);
  }
}

// Sets flush-to-zero and denormals-are-zero on the calling thread and every pool thread
// (denormals slow recurrent backward passes by an order of magnitude), and turns off
// OpenMP's dynamic team sizes, which oneDNN does not support.
void configure_threads();

}  // namespace kiln::cpu
