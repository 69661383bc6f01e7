#include "kiln/layers/reshaping/permute.h"

#include <algorithm>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

Permute::Permute(std::vector<int64_t> dims, PermuteOptions options)
    : Layer(options.layer_args()), dims_(std::move(dims)) {
  std::vector<int64_t> sorted = dims_;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    KILN_CHECK(sorted[i] == static_cast<int64_t>(i) + 1, "Permute: dims must be a permutation of ",
               "1..", sorted.size(), " (the batch axis is not counted), got ", Shape(dims_));
}

std::vector<Tensor> Permute::call(const std::vector<Tensor>& inputs, const CallContext&) {
  const Tensor& x = inputs[0];
  KILN_CHECK(x.rank() == static_cast<int>(dims_.size()) + 1, "Permute with dims ", Shape(dims_),
             " expects inputs of rank ", dims_.size() + 1, ", got ", x.shape());
  std::vector<int64_t> perm{0};
  for (const int64_t d : dims_) perm.push_back(d);
  return {ops::transpose(x, std::move(perm))};
}

namespace {

// The base arguments with the required dims.
struct Arguments : PermuteOptions {
  std::vector<int64_t> dims;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table{required(field("dims", &Arguments::dims))};
  return table;
}

}  // namespace

Config Permute::get_config() const {
  return write_fields(Arguments{{}, dims_}, fields(), Layer::get_config());
}

LayerPtr Permute::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Permute");
  return std::make_shared<Permute>(a.dims, a);
}

}  // namespace kiln::layers
