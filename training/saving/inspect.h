#pragma once
// What an HDF5 file of weights, a checkpoint or a .keras model file holds, as text for
// `kiln inspect`: the kind of file, where the run stood (checkpoints), the model's summary when
// the file stores its config, the compile arguments (.keras), every variable with its shape and
// dtype, the optimizer's state and the stored run config.
// `summarize` turns a stored model config (JSON) into the model's summary; the caller brings it
// (kiln::summary_of_config), so saving needs nothing of training/model.
#include <functional>
#include <string>

namespace kiln::saving {

using ConfigSummary = std::function<std::string(const std::string& model_config_json)>;

std::string describe_file(const std::string& path, const ConfigSummary& summarize);

}  // namespace kiln::saving
