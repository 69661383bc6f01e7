#include "kiln/training/metrics/tensor_utils.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::metrics {

std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(Tensor a, Tensor b, bool expand_rank_1) {
  if (a.rank() == b.rank() + 1 && a.shape().dim(-1) == 1) {
    if (b.rank() == 1 && expand_rank_1)
      b = ops::expand_dims(b, -1);
    else
      a = ops::squeeze(a, {-1});
  } else if (b.rank() == a.rank() + 1 && b.shape().dim(-1) == 1) {
    if (a.rank() == 1 && expand_rank_1)
      a = ops::expand_dims(a, -1);
    else
      b = ops::squeeze(b, {-1});
  }
  return {std::move(a), std::move(b)};
}

Tensor divide_no_nan(const Tensor& a, const Tensor& b) {
  const Tensor zero = ops::equal(b, ops::zeros_like(b));
  // Divide by 1 where b is 0 so no inf or NaN is ever made, not even in the discarded branch.
  return ops::where(zero, scalar(0, a.dtype()), a / ops::where(zero, ops::ones_like(b), b));
}

Tensor to_float32(const Tensor& x) {
  return x.dtype() == DType::f32 ? x : ops::cast(x, DType::f32);
}

std::vector<int64_t> trailing_axes(int from, int rank) {
  std::vector<int64_t> axes;
  for (int i = from; i < rank; ++i) axes.push_back(i);
  return axes;
}

}  // namespace kiln::metrics
