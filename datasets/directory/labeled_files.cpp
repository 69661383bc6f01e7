#include "kiln/datasets/directory/labeled_files.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "kiln/datasets/numpy_shuffle.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

namespace fs = std::filesystem;

std::string joined(std::span<const std::string> names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

bool has_extension(const std::string& name, std::span<const std::string> extensions) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const std::string& e) { return lower.ends_with(e); });
}

// Keras's walk: the folders under `directory` (itself first) sorted by path, and each folder's
// files sorted by name.
std::vector<std::string> files_under(const fs::path& directory, bool follow_links,
                                     std::span<const std::string> extensions) {
  std::map<std::string, std::vector<std::string>> by_folder;
  by_folder[directory.string()];
  const auto options =
      follow_links ? fs::directory_options::follow_directory_symlink : fs::directory_options::none;
  for (auto it = fs::recursive_directory_iterator(directory, options);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory()) {
      by_folder[it->path().string()];
    } else if (it->is_regular_file() && has_extension(it->path().filename().string(), extensions)) {
      by_folder[it->path().parent_path().string()].push_back(it->path().filename().string());
    }
  }
  std::vector<std::string> paths;
  for (auto& [folder, names] : by_folder) {
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) paths.push_back((fs::path(folder) / name).string());
  }
  return paths;
}

std::vector<std::string> class_folders(const LabeledFileOptions& o) {
  std::vector<std::string> subdirs;
  for (const fs::directory_entry& e : fs::directory_iterator(o.directory))
    if (e.is_directory() && !e.path().filename().string().starts_with("."))
      subdirs.push_back(e.path().filename().string());
  std::sort(subdirs.begin(), subdirs.end());
  if (o.class_names.empty()) return subdirs;
  for (const std::string& name : o.class_names)
    KILN_CHECK(std::find(subdirs.begin(), subdirs.end(), name) != subdirs.end(), o.directory,
               ": class_names names '", name,
               "', which is no subfolder (subfolders: ", joined(subdirs), ")");
  return o.class_names;
}

}  // namespace

LabelMode label_mode(const std::string& name) {
  if (name == "int") return LabelMode::integer;
  if (name == "categorical") return LabelMode::categorical;
  if (name == "binary") return LabelMode::binary;
  if (name == "none") return LabelMode::none;
  throw Error(detail::concat("unknown label_mode '", name, "' (int, categorical, binary or none)"));
}

LabeledFiles index_labeled_files(const LabeledFileOptions& o,
                                 std::span<const std::string> extensions, std::string_view what) {
  KILN_CHECK(fs::is_directory(o.directory), o.directory, ": no such directory");
  LabeledFiles files;
  if (o.inferred_labels) {
    files.class_names = class_folders(o);
    for (size_t k = 0; k < files.class_names.size(); ++k)
      for (std::string& path :
           files_under(fs::path(o.directory) / files.class_names[k], o.follow_links, extensions)) {
        files.paths.push_back(std::move(path));
        files.labels.push_back(static_cast<int32_t>(k));
      }
  } else {
    KILN_CHECK(o.class_names.empty(), o.directory, ": class_names needs inferred labels");
    files.paths = files_under(o.directory, o.follow_links, extensions);
  }
  KILN_CHECK(!files.paths.empty(), o.directory, ": no ", what, " (", joined(extensions), ")",
             o.inferred_labels ? " in class subfolders" : "");
  KILN_CHECK(o.label_mode != LabelMode::binary || files.class_names.size() == 2, o.directory,
             ": label_mode binary needs 2 classes, found ", files.class_names.size(), " (",
             joined(files.class_names), ")");
  if (o.shuffle) {
    numpy_shuffle(files.paths, o.seed);
    numpy_shuffle(files.labels, o.seed);
  }
  return files;
}

LabeledFiles first_files(LabeledFiles files, int64_t limit) {
  if (limit <= 0 || static_cast<size_t>(limit) >= files.paths.size()) return files;
  files.paths.resize(static_cast<size_t>(limit));
  if (!files.labels.empty()) files.labels.resize(static_cast<size_t>(limit));
  return files;
}

std::pair<size_t, size_t> subset_range(size_t n, double validation_split, Subset subset) {
  if (subset == Subset::all || validation_split <= 0) return {0, n};
  const auto validating = static_cast<size_t>(validation_split * static_cast<double>(n));
  if (subset == Subset::training) return {0, n - validating};
  return {n - validating, n};
}

LabeledFiles labeled_subset(const LabeledFiles& files, double validation_split, Subset subset) {
  const auto [from, to] = subset_range(files.paths.size(), validation_split, subset);
  LabeledFiles out{{files.paths.begin() + static_cast<std::ptrdiff_t>(from),
                    files.paths.begin() + static_cast<std::ptrdiff_t>(to)},
                   {},
                   files.class_names};
  if (!files.labels.empty())
    out.labels.assign(files.labels.begin() + static_cast<std::ptrdiff_t>(from),
                      files.labels.begin() + static_cast<std::ptrdiff_t>(to));
  return out;
}

Tensor label_tensor(int32_t label, LabelMode mode, int64_t classes) {
  switch (mode) {
    case LabelMode::integer:
      return full({}, label, DType::i32, Device::cpu());
    case LabelMode::binary:
      return full({1}, label, DType::f32, Device::cpu());
    case LabelMode::categorical: {
      Tensor one_hot = zeros({classes}, DType::f32, Device::cpu());
      one_hot.data<float>()[label] = 1;
      return one_hot;
    }
    case LabelMode::none:
      break;
  }
  return Tensor();
}

}  // namespace kiln::datasets
