#pragma once
// out[m, n] = a[m, k] . b for many calls with one b and a varying number of rows m: a recurrent
// layer's steps, whose active rows vary with the mask. b is reordered once into the layout
// oneDNN's matmul prefers; dnnl_sgemm repacks it on every call, which at a recurrent layer's sizes
// costs more than the product (docs/framework.md, "Measured choices").
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace kiln::cpu {

class PackedMatmul {
 public:
  // b: [k, n] row-major, or [n, k] with transpose_b. It is read when a call first needs a layout,
  // so it must outlive the object.
  PackedMatmul(const float* b, int64_t k, int64_t n, bool transpose_b);
  ~PackedMatmul();

  // a: m rows of k values, lda apart; out: m rows of n values, contiguous.
  void run(int64_t m, const float* a, int64_t lda, float* out);

 private:
  struct Bound;
  Bound& bound(int64_t m, int64_t lda);
  const dnnl::memory& packed(const dnnl::memory::desc& layout);

  int64_t k_, n_;
  dnnl::memory user_b_;
  std::vector<std::pair<dnnl::memory::desc, dnnl::memory>> packed_;      // per layout asked for
  std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Bound>> bound_;  // per (m, lda)
};

}  // namespace kiln::cpu
