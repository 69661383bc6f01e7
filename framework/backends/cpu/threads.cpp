#include <xmmintrin.h>

#include "framework/backends/cpu/parallel.h"

namespace kiln::cpu {

void configure_threads() {
  // oneDNN's OpenMP kernels split work for the team size they ask for; a team shrunk by dynamic
  // adjustment (OMP_DYNAMIC=true on a loaded machine) leaves parts of a GEMM uncomputed.
  omp_set_dynamic(0);
  constexpr unsigned kFlushToZero = 0x8000;
  constexpr unsigned kDenormalsAreZero = 0x0040;
  _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero);
#pragma omp parallel
  { _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero); }
}

}  // namespace kiln::cpu
