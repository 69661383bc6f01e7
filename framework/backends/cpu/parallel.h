#pragma once
// One threading runtime for the whole process: OpenMP, which oneDNN uses too. Mixing it with a
// second pool oversubscribes the cores.
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace kiln::cpu {

// Below this many elements a loop runs on the calling thread: waking the pool costs more.
inline constexpr int64_t kParallelGrain = 32768;

// Splits [0, n) into one contiguous chunk per thread (multiples of 64 elements, so chunks of
// float data start on cache-line boundaries) and calls fn(begin, end) for each.
template <typename Fn>
void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= grain || omp_in_parallel() || omp_get_max_threads() == 1) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  const int64_t threads = std::min<int64_t>(omp_get_max_threads(), (n + grain - 1) / grain);
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t chunk = ((n + nt - 1) / nt + 63) / 64 * 64;
    const int64_t begin = std::min(n, t * chunk);
    const int64_t end = std::min(n, begin + chunk);
    if (begin < end) fn(begin, end);
  }
}

// Sets flush-to-zero and denormals-are-zero on the calling thread and every pool thread:
// denormals made recurrent backward passes up to 20x slower on these machines.
void configure_threads();

}  // namespace kiln::cpu
