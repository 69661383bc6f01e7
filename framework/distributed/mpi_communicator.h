#pragma once
// The communicator over MPI_COMM_WORLD for host tensors: the ranks mpirun started, on one machine
// or many. MPI calls run on one worker thread, in the order they were issued, so a collective
// started by the traced step proceeds while the step goes on computing (gradient buckets overlap
// the rest of backward) and MPI is only ever entered by one thread.
#include <memory>

#include "kiln/framework/distributed/communicator.h"

namespace kiln::distributed {

// Whether mpirun (or another MPI launcher) started this process.
bool launched_by_mpi();
// How many ranks the launcher started (1 outside one), and this process's rank among them (0
// outside one).
int launched_ranks();
int launched_rank();

// The process's MPI communicator, initializing MPI on first use (MPI is finalized at exit).
std::shared_ptr<Communicator> mpi_world();

}  // namespace kiln::distributed
