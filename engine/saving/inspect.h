#pragma once
// What an HDF5 file of weights or a checkpoint holds, as text for `kiln inspect`: the kind of
// file, where the run stood (checkpoints), the model's summary when the file stores its config,
// every variable with its shape and dtype, the optimizer's state and the stored run config.
#include <string>

namespace kiln::saving {

std::string describe_file(const std::string& path);

}  // namespace kiln::saving
