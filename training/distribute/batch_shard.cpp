#include "kiln/training/distribute/batch_shard.h"

#include <algorithm>

#include "kiln/framework/ops/ops.h"

namespace kiln::distribute {

std::pair<int64_t, int64_t> shard_rows(int64_t rows, int replica, int replicas) {
  const int64_t base = rows / replicas;
  const int64_t extra = rows % replicas;
  const int64_t begin = replica * base + std::min<int64_t>(replica, extra);
  return {begin, begin + base + (replica < extra ? 1 : 0)};
}

std::vector<Tensor> shard_of(const std::vector<Tensor>& tensors, int replica, int replicas) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) {
    if (!t.defined() || t.rank() == 0) {
      out.push_back(t);
      continue;
    }
    const auto [begin, end] = shard_rows(t.dim(0), replica, replicas);
    std::vector<int64_t> b{begin};
    std::vector<int64_t> s{end - begin};
    b.resize(static_cast<size_t>(t.rank()), 0);
    s.resize(static_cast<size_t>(t.rank()), -1);  // the whole of every other axis
    out.push_back(ops::slice(t, b, s));
  }
  return out;
}

}  // namespace kiln::distribute
