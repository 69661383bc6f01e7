#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cpu::reference {

void matmul(const Tensor& a, const Tensor& b, const Tensor& out, bool transpose_a,
            bool transpose_b) {
  const int64_t m = out.dim(-2), n = out.dim(-1);
  const int64_t k = transpose_a ? a.dim(-2) : a.dim(-1);
  const int64_t batch = out.numel() / std::max<int64_t>(m * n, 1);
  const int64_t a_batch = a.numel() / std::max<int64_t>(m * k, 1);
  const int64_t b_batch = b.numel() / std::max<int64_t>(k * n, 1);
  visit_float_dtype(out.dtype(), "matmul", [&]<typename T>() {
    // Accumulate in double: this is the oracle.
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    parallel_for(batch * m, 64, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t bi = row / m, i = row % m;
        const T* ab = pa + (a_batch == 1 ? 0 : bi) * m * k;
        const T* bb = pb + (b_batch == 1 ? 0 : bi) * k * n;
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) {
            const double av = convert_value<double>(transpose_a ? ab[p * m + i] : ab[i * k + p]);
            const double bv = convert_value<double>(transpose_b ? bb[j * k + p] : bb[p * n + j]);
            acc += av * bv;
          }
          po[row * n + j] = convert_value<T>(acc);
        }
      }
    });
  });
}

}  // namespace kiln::cpu::reference
