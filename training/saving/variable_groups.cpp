#include "kiln/training/saving/variable_groups.h"

#include <sstream>

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::saving {
namespace {

std::string shape_string(const Shape& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

std::string vars_path(const std::string& group_path) {
  return group_path.empty() ? "vars" : group_path + "/vars";
}

std::string variable_key(const layers::WeightGroup& group, size_t i) {
  return group.keys.empty() ? std::to_string(i) : group.keys.at(i);
}

void write_groups(H5Group& root, const std::vector<layers::WeightGroup>& groups) {
  for (const layers::WeightGroup& g : groups) {
    H5Group vars = root.group(vars_path(g.path));
    vars.set_attr("name", g.name);
    for (size_t i = 0; i < g.variables.size(); ++i)
      vars.write(variable_key(g, i), g.variables[i].value());
  }
}

StagedValue stage_value(const H5Group& group, const std::string& dataset, const Variable& v) {
  const H5DatasetInfo info = group.info(dataset);
  KILN_CHECK(info.shape == v.shape(), group.where(), "/", dataset, ": variable '", v.name(),
             "' has shape ", shape_string(v.shape()), " in the model but ",
             shape_string(info.shape), " in the file");
  KILN_CHECK(info.dtype.has_value(), group.where(), "/", dataset, ": variable '", v.name(),
             "' is stored as a type that is not a number");
  KILN_CHECK(is_floating(*info.dtype) == is_floating(v.dtype()), group.where(), "/", dataset,
             ": variable '", v.name(), "' is ", dtype_name(v.dtype()), " in the model but ",
             dtype_name(*info.dtype), " in the file");
  Tensor value = group.read(dataset);
  if (value.dtype() != v.dtype()) value = ops::cast(value, v.dtype());
  return {v, value};
}

std::vector<StagedValue> stage_groups(const H5Group& root,
                                      const std::vector<layers::WeightGroup>& groups,
                                      const std::string& what) {
  std::vector<StagedValue> staged;
  for (const layers::WeightGroup& g : groups) {
    if (g.variables.empty()) continue;
    const std::string path = vars_path(g.path);
    KILN_CHECK(root.has_group(path), root.where(), ": no ", what, " '", g.name, "' (",
               g.variables.size(), " variables expected at ", path,
               "); is the file from another architecture?");
    const H5Group vars = root.open_group(path);
    const size_t stored = vars.children().size();
    KILN_CHECK(stored == g.variables.size(), vars.where(), ": '", g.name, "' has ",
               g.variables.size(), " variables in the model but ", stored, " in the file");
    for (size_t i = 0; i < g.variables.size(); ++i)
      staged.push_back(stage_value(vars, variable_key(g, i), g.variables[i]));
  }
  return staged;
}

void assign_all(const std::vector<StagedValue>& staged) {
  for (const StagedValue& s : staged) s.variable.assign(s.value);
}

}  // namespace kiln::saving
