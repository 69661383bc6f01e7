#pragma once
// Which replica this code computes for, while a data-parallel step runs or traces: the one place
// below the trainer that knows the batch is a shard. Losses divide by the global batch's size
// (global_sum of the local one), synchronized BatchNormalization sums its statistics over the
// replicas, random layers draw a stream of their own. Outside a ReplicaScope there is one
// replica and global_sum is the identity.
#include "kiln/framework/tensor/tensor.h"

namespace kiln::distributed {

struct ReplicaContext {
  int id = 0;
  int count = 1;
};

// The innermost ReplicaScope's replica on this thread; {0, 1} outside every scope.
ReplicaContext replica_context();

// The sum of `x` over the replicas (an all_reduce across the ranks), or `x` with one replica.
Tensor global_sum(const Tensor& x);

class ReplicaScope {
 public:
  explicit ReplicaScope(ReplicaContext context);
  ~ReplicaScope();
  ReplicaScope(const ReplicaScope&) = delete;
  ReplicaScope& operator=(const ReplicaScope&) = delete;

 private:
  ReplicaContext previous_;
};

}  // namespace kiln::distributed
