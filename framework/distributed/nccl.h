#pragma once
// NCCL for the CUDA tensors of data-parallel training: one rank per GPU, its collectives queued
// on a stream of their own that waits for the compute stream (and the compute stream waits for
// them), so a reduction overlaps the kernels after it without the host waiting. Host tensors,
// and the exchange of NCCL's unique id, go through `bootstrap` (MPI across processes, a group of
// threads in one).
#include <memory>
#include <vector>

#include "kiln/framework/distributed/communicator.h"

namespace kiln::distributed {

// The NCCL communicator of the bootstrap's ranks, this rank on GPU `device`. A build without
// CUDA refuses it.
std::shared_ptr<Communicator> nccl_world(std::shared_ptr<Communicator> bootstrap, int device);

// The NCCL communicators of one process's GPUs, made at once (one group of
// ncclCommInitRankConfig calls, bounded by the first bootstrap's timeout): rank i on GPU
// devices[i], its host tensors through bootstraps[i] (rank i of a thread_group), each for the
// thread that computes on that GPU. A build without CUDA refuses them.
std::vector<std::shared_ptr<Communicator>> nccl_group(
    const std::vector<std::shared_ptr<Communicator>>& bootstraps, const std::vector<int>& devices);

}  // namespace kiln::distributed
