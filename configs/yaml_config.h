#pragma once
// YAML files read into kiln::Config (yaml-cpp underneath): maps keep their order, plain scalars
// take YAML 1.2's core types (null, true/false, integers, floats such as 3e-4; anything else is
// a string; quoted scalars are always strings), and every value remembers "file:line:column"
// and its key path, so any later error about it points into the file.
//
// `include: base.yaml` (or a list of files) at the top of a file merges those files first
// (paths relative to the including file); the including file's own keys win, maps merging key
// by key and anything else replaced. --set style overrides apply to the result.
#include <string>
#include <string_view>

#include "kiln/framework/core/config.h"

namespace kiln::configs {

Config load_yaml_file(const std::string& path);
// `name` stands for the file in origins and errors.
Config parse_yaml(std::string_view text, const std::string& name);

// Applies "key.path=value" (value read as YAML: 3e-4, true, [1, 2], {a: 1}, or a string) to
// `config`: missing map keys are created, list elements are addressed as layers[2] or
// layers.2. The new value's origin is `origin` ("--set").
void apply_override(Config& config, std::string_view assignment,
                    const std::string& origin = "--set");

// `config` as a YAML document (block style; strings that would read back as another type are
// quoted), which parse_yaml reads back to an equal Config.
std::string to_yaml(const Config& config);

}  // namespace kiln::configs
