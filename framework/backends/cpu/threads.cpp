#include <xmmintrin.h>

#include "framework/backends/cpu/parallel.h"

namespace kiln::cpu {

void configure_threads() {
  constexpr unsigned kFlushToZero = 0x8000;
  constexpr unsigned kDenormalsAreZero = 0x0040;
  _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero);
#pragma omp parallel
  { _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero); }
}

}  // namespace kiln::cpu
