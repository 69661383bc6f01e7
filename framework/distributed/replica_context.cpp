#include "kiln/framework/distributed/replica_context.h"

#include "kiln/framework/ops/ops.h"

namespace kiln::distributed {
namespace {

thread_local ReplicaContext current;

}  // namespace

ReplicaContext replica_context() {
  return current;
}

Tensor global_sum(const Tensor& x) {
  return current.count > 1 ? ops::all_reduce(x, ReduceOp::sum) : x;
}

ReplicaScope::ReplicaScope(ReplicaContext context) : previous_(current) {
  current = context;
}

ReplicaScope::~ReplicaScope() {
  current = previous_;
}

}  // namespace kiln::distributed
