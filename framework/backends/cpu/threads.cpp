#include <xmmintrin.h>

#include <algorithm>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/backends/cpu/parallel.h"

namespace kiln {
namespace cpu {
namespace {

void flush_denormals() {
  constexpr unsigned kFlushToZero = 0x8000;
  constexpr unsigned kDenormalsAreZero = 0x0040;
  _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero);
}

}  // namespace

void configure_threads() {
  // oneDNN's OpenMP kernels split work for the team size they ask for; a team shrunk by dynamic
  // adjustment (OMP_DYNAMIC=true on a loaded machine) leaves parts of a GEMM uncomputed.
  omp_set_dynamic(0);
  flush_denormals();
#pragma omp parallel
  { flush_denormals(); }
}

}  // namespace cpu

void configure_background_thread() {
  // The team size is a per-thread setting: the model's thread keeps its pool.
  set_cpu_threads(1);
}

int cpu_threads() {
  return omp_get_max_threads();
}

void set_cpu_threads(int threads) {
  // Per-thread settings, as configure_threads makes them for the first thread.
  omp_set_dynamic(0);
  omp_set_num_threads(std::max(threads, 1));
  cpu::flush_denormals();
}

}  // namespace kiln
