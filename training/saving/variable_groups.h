#pragma once
// Groups of variables in Keras 3's file layout (<path>/vars/0, /1, ...), written and read for
// weight files and checkpoints alike. Reading stages every value first, checked against the
// variable it is for, so a caller assigns all of them or none.
#include <string>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/training/saving/h5_file.h"

namespace kiln::saving {

// "vars" for the root's own group, else "<path>/vars".
std::string vars_path(const std::string& group_path);
// The dataset name of the group's i-th variable: its key, else i.
std::string variable_key(const layers::WeightGroup& group, size_t i);

// Each group as <path>/vars/<key>, with Keras's "name" attribute.
void write_groups(H5Group& root, const std::vector<layers::WeightGroup>& groups);

// A value read for a variable, not yet assigned.
struct StagedValue {
  Variable variable;
  Tensor value;
};

// Reads `dataset` of `group` for `v`: the shapes must agree and the stored numbers must be of the
// variable's kind (float or integer; the width may differ, float64 into float32).
StagedValue stage_value(const H5Group& group, const std::string& dataset, const Variable& v);
// Every variable of every group; a group without variables needs nothing in the file. `what`
// names the kind of state in errors ("weights for", "optimizer state for").
std::vector<StagedValue> stage_groups(const H5Group& root,
                                      const std::vector<layers::WeightGroup>& groups,
                                      const std::string& what);
void assign_all(const std::vector<StagedValue>& staged);

}  // namespace kiln::saving
