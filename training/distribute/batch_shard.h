#pragma once
// A replica's shard of a global batch: rows [begin, end) of every tensor, the batch split as
// evenly as it goes (the first `rows % replicas` replicas take one row more), so the shards
// cover the batch without overlap and a last, smaller batch still reaches every replica it can.
#include <cstdint>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::distribute {

// [begin, end) of replica `replica`'s rows among `rows`.
std::pair<int64_t, int64_t> shard_rows(int64_t rows, int replica, int replicas);

// Each tensor's rows of the shard (tensors share their leading dim).
std::vector<Tensor> shard_of(const std::vector<Tensor>& tensors, int replica, int replicas);

}  // namespace kiln::distribute
