#pragma once
// Ranks that are threads of one process (MirroredStrategy's replicas on the CPU, and the host
// tensors of its GPU replicas): their collectives meet in memory. Every rank issues the same
// collectives in the same order (the traced steps do); the k-th of each is one round. The last
// rank to join a round combines the round's tensors, in rank order so that every rank gets the
// same bits, and writes the result into each rank's. A rank that waits past the timeout, or finds
// the group aborted (another replica failed), throws an error naming the collective and the
// ranks it waited for: a failed replica never leaves the others hanging.
#include <memory>
#include <vector>

#include "kiln/framework/distributed/communicator.h"

namespace kiln::distributed {

// `size` communicators, rank i at i, each for one thread to use.
std::vector<std::shared_ptr<Communicator>> thread_group(int size);

// After a failure (a rank aborted the group, or rounds were left half joined), with no rank's
// thread inside a collective: the group starts afresh, as thread_group made it. `ranks` are all
// of one group's.
void restart(const std::vector<std::shared_ptr<Communicator>>& ranks);

}  // namespace kiln::distributed
