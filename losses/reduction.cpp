#include "kiln/losses/reduction.h"

#include <array>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/prepare.h"

namespace kiln::losses {
namespace {

struct ReductionName {
  Reduction reduction;
  std::string_view name;
};
constexpr std::array<ReductionName, 5> kReductionNames{{
    {Reduction::sum_over_batch_size, "sum_over_batch_size"},
    {Reduction::sum, "sum"},
    {Reduction::mean, "mean"},
    {Reduction::none, "none"},
    {Reduction::mean_with_sample_weight, "mean_with_sample_weight"},
}};

// Whether `from` broadcasts to `to` without growing it (NumPy rules; unknown dims pass, the
// ops check them when the shapes are concrete).
bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) return false;
  const int lead = to.rank() - from.rank();
  for (int i = 0; i < from.rank(); ++i) {
    const int64_t f = from[i];
    const int64_t t = to[i + lead];
    if (f != 1 && f != t && f != Shape::kUnknownDim && t != Shape::kUnknownDim) return false;
  }
  return true;
}

void check_weight_shape(const Tensor& values, const Tensor& weight, std::string_view what,
                        std::string_view loss_name) {
  const auto [v, w] = squeeze_or_expand_to_same_rank(values, weight);
  KILN_CHECK(broadcasts_to(w.shape(), v.shape()), "loss '", loss_name, "': ", what, " of shape ",
             weight.shape(), " does not broadcast to the per-sample losses of shape ",
             values.shape());
}

// Keras's apply_mask: the mask as a weight, merged into sample_weight (undefined = none).
Tensor apply_mask(const Tensor& sample_weight, const Tensor& mask, DType dtype,
                  Reduction reduction) {
  const Tensor valid = ops::cast(mask, DType::boolean);
  Tensor mask_weight;
  if (reduction == Reduction::mean || reduction == Reduction::sum_over_batch_size) {
    // Valid positions weigh total / valid, so dividing the sum by the total count averages over
    // the valid positions only: those of the global batch, on a replica of a data-parallel step.
    const Tensor total = distributed::global_sum(ops::size_of(valid, {}, dtype));
    const Tensor count = distributed::global_sum(ops::sum(ops::cast(valid, dtype)));
    mask_weight = ops::where(valid, divide_no_nan(total, count), scalar(0, dtype, mask.device()));
  } else {
    mask_weight = ops::cast(valid, dtype);
  }
  if (!sample_weight.defined()) return mask_weight;
  const auto [m, w] = squeeze_or_expand_to_same_rank(mask_weight, sample_weight);
  return w * m;
}

Tensor reduce_values(const Tensor& values, const Tensor& sample_weight, Reduction reduction) {
  if (reduction == Reduction::none) return values;
  // A loss already reduced to a scalar (a custom one's mean): each replica's share, as Keras
  // scales it by 1 / replicas; the replicas' sums add up as they are.
  if (values.rank() == 0) {
    const int replicas = distributed::replica_context().count;
    return reduction == Reduction::sum || replicas == 1 ? values : values * (1.0 / replicas);
  }
  const Tensor total = ops::sum(values);
  if (reduction == Reduction::sum) return total;
  const Tensor divisor = reduction == Reduction::mean_with_sample_weight && sample_weight.defined()
                             ? ops::sum(sample_weight)
                             : ops::size_of(values, {}, values.dtype());
  // A replica's loss is its share of the global batch's (Keras divides by the global batch):
  // the replicas' losses, and so their gradients, sum to those of one device on the whole batch.
  return divide_no_nan(total, distributed::global_sum(divisor));
}

}  // namespace

Reduction parse_reduction(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& r : kReductionNames) {
    if (r.name == name) return r.reduction;
    names.emplace_back(r.name);
  }
  std::string hint = did_you_mean(name, names);
  if (hint.empty()) {
    hint = "known: ";
    for (size_t i = 0; i < names.size(); ++i) hint += (i == 0 ? "" : ", ") + names[i];
  }
  throw Error(detail::concat("unknown loss reduction '", name, "'; ", hint));
}

std::string_view reduction_name(Reduction reduction) {
  for (const auto& r : kReductionNames)
    if (r.reduction == reduction) return r.name;
  throw Error(detail::concat("reduction_name: invalid Reduction ", static_cast<int>(reduction)));
}

Tensor divide_no_nan(const Tensor& a, const Tensor& b) {
  const Tensor zero = ops::zeros_like(b);
  const Tensor is_zero = ops::equal(b, zero);
  // Divide by 1 where b is 0, so no inf or NaN is made even in the discarded branch.
  return ops::where(is_zero, zero, a / ops::where(is_zero, ops::ones_like(b), b));
}

std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(const Tensor& x1, const Tensor& x2,
                                                         bool expand_rank_1) {
  const int r1 = x1.rank();
  const int r2 = x2.rank();
  if (r1 == r2 + 1 && x1.shape().dim(-1) == 1) {
    if (r2 == 1 && expand_rank_1) return {x1, ops::expand_dims(x2, -1)};
    return {ops::squeeze(x1, {-1}), x2};
  }
  if (r2 == r1 + 1 && x2.shape().dim(-1) == 1) {
    if (r1 == 1 && expand_rank_1) return {ops::expand_dims(x1, -1), x2};
    return {x1, ops::squeeze(x2, {-1})};
  }
  return {x1, x2};
}

Tensor reduce_weighted_values(const Tensor& values, const Tensor& sample_weight, const Tensor& mask,
                              Reduction reduction, std::string_view loss_name) {
  // Losses are at least float32, whatever a custom loss returned.
  const DType dtype = internal::compute_dtype(values.dtype());
  Tensor weighted = ops::cast(values, dtype);
  Tensor weight;
  if (sample_weight.defined()) {
    check_weight_shape(weighted, sample_weight, "sample_weight", loss_name);
    weight = ops::cast(sample_weight, dtype);
  }
  if (mask.defined()) {
    check_weight_shape(weighted, mask, "mask", loss_name);
    weight = apply_mask(weight, mask, dtype, reduction);
  }
  if (weight.defined()) {
    std::tie(weighted, weight) = squeeze_or_expand_to_same_rank(weighted, weight);
    weighted = weighted * weight;
  }
  return reduce_values(weighted, weight, reduction);
}

}  // namespace kiln::losses
