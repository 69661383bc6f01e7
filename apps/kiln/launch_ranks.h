#pragma once
// `kiln train --nproc N`: the same command as N MPI ranks, started by OpenMPI's mpirun on this
// machine.
#include <string>
#include <vector>

namespace kiln::cli {

// Replaces this process with `mpirun -np nproc <this program> <args>`; returns only when mpirun
// cannot be started, with an error message in *error.
void launch_ranks(int nproc, const std::vector<std::string>& args, std::string* error);

}  // namespace kiln::cli
