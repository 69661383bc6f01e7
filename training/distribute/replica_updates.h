#pragma once
// State that every replica keeps alike: the weights, from rank 0's at the start, and, although
// each replica sees only its shard, the metrics' totals
// and counts. After a step's local updates, each variable becomes its value before the step plus
// the sum over the replicas of their updates (one all_reduce for all of them), so each epoch
// logs the figures of the global batch, as one device would.
#include <vector>

#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::distribute {

// The variables' values now, kept apart from their live storage (eager values are that storage,
// which an update overwrites).
std::vector<Tensor> values_before(const std::vector<Variable>& variables);

// Every rank's variables take rank 0's values (the replicas start alike).
void broadcast_from_rank0(const std::vector<Variable>& variables);

// Each variable := before + sum over replicas of (its value - before).
void sum_updates_over_replicas(const std::vector<Variable>& variables,
                               const std::vector<Tensor>& before);

// Each variable := before + the replicas' updates (its value - before) averaged, weighted by
// `rows` (the replica's rows: a replica without rows, whose statistics are undefined, counts
// nothing). A BatchNormalization's moving statistics, updated from each replica's shard, stay
// alike on every replica, as Keras's mirrored variables with MEAN aggregation.
void average_updates_over_replicas(const std::vector<Variable>& variables,
                                   const std::vector<Tensor>& before, const Tensor& rows);

}  // namespace kiln::distribute
