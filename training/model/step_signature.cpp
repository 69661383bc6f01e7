#include "kiln/training/model/step_signature.h"

namespace kiln {

std::vector<TensorSpec> step_specs(const std::vector<Tensor>& tensors,
                                   const std::vector<TensorMeta>& declared) {
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<int64_t> dims = tensors[i].shape().dims();
    if (!dims.empty()) dims[0] = -1;
    if (i < declared.size()) {
      const Shape& d = declared[i].shape;
      for (size_t a = 1; a < dims.size() && a < d.dims().size(); ++a)
        if (d.dims()[a] < 0) dims[a] = -1;
    }
    specs.emplace_back(Shape(std::move(dims)), tensors[i].dtype());
    specs.back().device = tensors[i].device();
  }
  return specs;
}

std::vector<TensorMeta> metas_of(const std::vector<TensorSpec>& specs) {
  std::vector<TensorMeta> metas;
  for (const TensorSpec& s : specs) metas.push_back({s.dtype, s.shape, s.device});
  return metas;
}

std::vector<TensorSpec> repeated(const std::vector<TensorSpec>& one, const Batch& batch,
                                 int64_t steps) {
  std::vector<TensorSpec> out;
  size_t at = 0;
  for (const size_t n : {batch.x.size(), batch.y.size(), batch.sample_weight.size()}) {
    for (int64_t i = 0; i < steps; ++i)
      out.insert(out.end(), one.begin() + static_cast<std::ptrdiff_t>(at),
                 one.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return out;
}

std::vector<Tensor> nth_group(const std::vector<Tensor>& all, int64_t i, int64_t steps) {
  const auto per = static_cast<int64_t>(all.size()) / steps;
  return {all.begin() + i * per, all.begin() + (i + 1) * per};
}

}  // namespace kiln
