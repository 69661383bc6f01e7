#pragma once
// The gradients of a data-parallel train step summed over the replicas: packed into buckets of
// about `bucket_bytes` (one dtype each) in the order backprop produces them, the last layer's
// first, one all_reduce_start per bucket. The engine starts each bucket's reduction as soon as
// its gradients exist (engine/passes: issue_collectives_early) and waits only where the
// optimizer needs the sums, so communication overlaps the rest of backward.
#include <cstdint>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::distribute {

// Which gradients (by index; undefined ones are in none) each bucket holds, in reduction order.
std::vector<std::vector<size_t>> plan_buckets(const std::vector<Tensor>& gradients,
                                              int64_t bucket_bytes);

// `gradients` (undefined: no gradient) summed over the ranks of distributed::world(). A replica
// whose shard has no rows (`has_rows` false: a last batch smaller than the replicas) adds zeros,
// whatever its kernels made of an empty batch.
std::vector<Tensor> all_reduce_gradients(const std::vector<Tensor>& gradients, int64_t bucket_bytes,
                                         const Tensor& has_rows);

}  // namespace kiln::distribute
