#include "kiln/training/saving/inspect.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/training/saving/checkpoint.h"
#include "kiln/training/saving/h5_file.h"
#include "kiln/training/saving/keras_archive.h"

namespace kiln::saving {
namespace {

struct Entry {
  std::string path;
  H5DatasetInfo info;
};

// Names in reading order: "2" before "10".
bool natural_less(const std::string& a, const std::string& b) {
  const bool numbers = !a.empty() && !b.empty() &&
                       a.find_first_not_of("0123456789") == std::string::npos &&
                       b.find_first_not_of("0123456789") == std::string::npos;
  return numbers && a.size() != b.size() ? a.size() < b.size() : a < b;
}

// Each group once: HDF5 links can form a cycle (a group linking to its ancestor), or share a
// group between parents so that a few bytes name exponentially many paths; no weights file has
// either, so the second link to a group is refused.
void collect(const H5Group& group, const std::string& prefix, std::vector<Entry>& out,
             std::set<uint64_t>& visited) {
  KILN_CHECK(visited.insert(group.address()).second, group.where(),
             " is a group already reached by another link (a cycle or a shared group, which no "
             "weights file has)");
  std::vector<std::string> children = group.children();
  std::sort(children.begin(), children.end(), natural_less);
  for (const std::string& child : children) {
    const std::string path = prefix.empty() ? child : prefix + "/" + child;
    if (group.has_group(child))
      collect(group.open_group(child), path, out, visited);
    else
      out.push_back({path, group.info(child)});
  }
}

void list(std::ostringstream& out, const std::vector<Entry>& entries) {
  size_t width = 0;
  for (const Entry& e : entries) width = std::max(width, e.path.size());
  for (const Entry& e : entries) {
    std::ostringstream shape;
    shape << e.info.shape;
    out << "  " << e.path << std::string(width - e.path.size() + 2, ' ') << shape.str() << ' '
        << (e.info.dtype ? dtype_name(*e.info.dtype) : "(not numbers)") << '\n';
  }
}

int64_t count_params(const std::vector<Entry>& entries) {
  int64_t n = 0;
  for (const Entry& e : entries) n += e.info.shape.numel();
  return n;
}

// The variables under `root`: the model's weights, then the optimizer's state with its step
// count.
void describe_variables(std::ostringstream& out, const H5Group& root, bool legacy) {
  std::vector<Entry> weights, optimizer;
  std::set<uint64_t> visited;
  if (legacy) {
    collect(root.has_group("model_weights") ? root.open_group("model_weights") : root, "", weights,
            visited);
  } else {
    for (const std::string& child : root.children()) {
      if (child == "kiln") continue;
      if (!root.has_group(child)) continue;
      collect(root.open_group(child), child, child == "optimizer" ? optimizer : weights, visited);
    }
  }
  out << "\nweights: " << weights.size() << " variables, " << count_params(weights) << " values\n";
  list(out, weights);
  if (optimizer.empty()) return;
  const H5Group vars = root.open_group("optimizer/vars");
  out << "\noptimizer" << (vars.has_attr("name") ? " '" + vars.attr_string("name") + "'" : "")
      << ": " << optimizer.size() << " variables";
  // The step count is the first variable, or under loss scaling (four of its own first, as
  // Keras's LossScaleOptimizer) the inner optimizer's first.
  const std::string first =
      vars.has_attr("name") && vars.attr_string("name") == "loss_scale_optimizer" && vars.has("4")
          ? "4"
          : "0";
  if (vars.has(first) && vars.info(first).shape.numel() == 1) {
    // Shown as stored: a float (from a foreign writer) may not fit an integer.
    const Tensor iterations = vars.read(first);
    out << ", iterations ";
    if (is_floating(iterations.dtype()))
      out << iterations.item<double>();
    else
      out << iterations.item<int64_t>();
  }
  out << '\n';
  list(out, optimizer);
}

bool is_zip(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  file.read(magic, 4);
  return file.gcount() == 4 && std::string(magic, 4) == std::string("PK\x03\x04", 4);
}

// A .keras file: its Keras version and date, the model's summary, its compile arguments and the
// variables of its model.weights.h5.
std::string describe_keras_file(const std::string& path, const ConfigSummary& summarize) {
  const std::vector<ArchiveEntry> entries = read_zip_archive(path);
  const Config metadata = Config::from_json(archive_entry(entries, "metadata.json", path));
  const std::string config_json = archive_entry(entries, "config.json", path);
  std::ostringstream out;
  out << path << ": Keras model file (format of Keras " << metadata.get_string("keras_version", "?")
      << ", saved " << metadata.get_string("date_saved", "?") << ")\n\n"
      << summarize(config_json);
  const Config config = Config::from_json(config_json);
  const Config* compile = config.find("compile_config");
  if (compile != nullptr && compile->is_map() && !compile->as_map().empty())
    out << "\ncompiled: " << compile->to_json() << '\n';
  else
    out << "\nnot compiled\n";
  const std::string weights_name = path + ":model.weights.h5";
  const H5File weights =
      H5File::open_image(archive_entry(entries, "model.weights.h5", path), weights_name);
  describe_variables(out, weights.root(), false);
  return out.str();
}

}  // namespace

std::string describe_file(const std::string& path, const ConfigSummary& summarize) {
  if (is_zip(path)) return describe_keras_file(path, summarize);
  const H5Group root = H5File::open(path).root();
  std::ostringstream out;
  const bool checkpoint = root.has_group("kiln");
  const bool legacy = root.has_group("model_weights") || root.has_attr("layer_names");
  out << path << ": "
      << (checkpoint ? "kiln checkpoint"
          : legacy   ? "legacy Keras HDF5 model/weights"
                     : "Keras 3 weights file")
      << '\n';
  std::string model_config, run_config;
  if (checkpoint) {
    const CheckpointInfo info = read_checkpoint_info(path);
    out << "epoch " << info.state.epoch << ", step " << info.state.step
        << " (the epoch in progress, from 0, and its batches trained)\n";
    model_config = info.model_config;
    run_config = info.run_config;
  } else if (root.has_attr("model_config")) {
    model_config = root.attr_string("model_config");
  }
  if (!model_config.empty()) out << '\n' << summarize(model_config);
  describe_variables(out, root, legacy);
  if (checkpoint && root.has_group("kiln/random_states")) {
    std::vector<Entry> streams;
    std::set<uint64_t> visited;
    collect(root.open_group("kiln/random_states"), "kiln/random_states", streams, visited);
    out << "\nrandom streams (seed, draws): " << streams.size() << '\n';
    list(out, streams);
  }
  if (!run_config.empty()) out << "\nrun config: " << run_config << '\n';
  return out.str();
}

}  // namespace kiln::saving
