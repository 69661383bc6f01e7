#include "kiln/training/distribute/gradient_buckets.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::distribute {
namespace {

// The dtype a gradient travels in: MPI and the reduction kernels sum float32, not halves.
DType wire_dtype(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? DType::f32 : dtype;
}

}  // namespace

std::vector<std::vector<size_t>> plan_buckets(const std::vector<Tensor>& gradients,
                                              int64_t bucket_bytes) {
  std::vector<std::vector<size_t>> buckets;
  int64_t filled = 0;
  DType dtype = DType::f32;
  // Backprop reaches the last layer's variables first: they are listed last.
  for (size_t k = gradients.size(); k-- > 0;) {
    const Tensor& g = gradients[k];
    if (!g.defined()) continue;
    const auto bytes = static_cast<int64_t>(g.nbytes());
    const bool fits =
        !buckets.empty() && wire_dtype(g.dtype()) == dtype && filled + bytes <= bucket_bytes;
    if (!fits) {
      buckets.emplace_back();
      filled = 0;
      dtype = wire_dtype(g.dtype());
    }
    buckets.back().push_back(k);
    filled += bytes;
  }
  return buckets;
}

std::vector<Tensor> all_reduce_gradients(const std::vector<Tensor>& gradients, int64_t bucket_bytes,
                                         const Tensor& has_rows) {
  const std::vector<std::vector<size_t>> buckets = plan_buckets(gradients, bucket_bytes);
  std::vector<Tensor> started;
  for (size_t b = 0; b < buckets.size(); ++b) {
    std::vector<Tensor> flat;
    for (const size_t k : buckets[b]) {
      const Tensor& g = gradients[k];
      flat.push_back(ops::reshape(ops::cast(g, wire_dtype(g.dtype())), Shape({g.numel()})));
    }
    Tensor packed = flat.size() == 1 ? flat[0] : ops::concat(flat, 0);
    packed = ops::where(has_rows, packed, ops::zeros_like(packed));
    started.push_back(
        ops::all_reduce_start(packed, distributed::ReduceOp::sum, static_cast<int64_t>(b)));
  }
  std::vector<Tensor> summed(gradients.size());
  for (size_t b = 0; b < buckets.size(); ++b) {
    const Tensor packed = ops::all_reduce_wait(started[b], static_cast<int64_t>(b));
    int64_t offset = 0;
    for (const size_t k : buckets[b]) {
      const Tensor& g = gradients[k];
      const Tensor part =
          buckets[b].size() == 1 ? packed : ops::slice(packed, {offset}, {g.numel()});
      summed[k] = ops::cast(ops::reshape(part, g.shape()), g.dtype());
      offset += g.numel();
    }
  }
  return summed;
}

}  // namespace kiln::distribute
