#pragma once
// NCCL for the CUDA tensors of data-parallel training: one rank per GPU, its collectives queued
// on a stream of their own that waits for the compute stream (and the compute stream waits for
// them), so a reduction overlaps the kernels after it without the host waiting. Host tensors,
// and the exchange of NCCL's unique id, go through `bootstrap` (MPI across processes).
#include <memory>

#include "kiln/framework/distributed/communicator.h"

namespace kiln::distributed {

// The NCCL communicator of the bootstrap's ranks, this rank on GPU `device`. A build without
// CUDA refuses it.
std::shared_ptr<Communicator> nccl_world(std::shared_ptr<Communicator> bootstrap, int device);

}  // namespace kiln::distributed
