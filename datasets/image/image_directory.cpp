#include "kiln/datasets/image/image_directory.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "kiln/datasets/image/decode_image.h"
#include "kiln/datasets/numpy_shuffle.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kExtensions{".bmp", ".gif", ".jpeg", ".jpg", ".png", ".webp"};

std::string joined(const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

bool is_image_name(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(kExtensions.begin(), kExtensions.end(),
                     [&](const std::string& e) { return lower.ends_with(e); });
}

// Keras's walk: the folders under `directory` (itself first) sorted by path, and each folder's
// images sorted by name.
std::vector<std::string> images_under(const fs::path& directory, bool follow_links) {
  std::map<std::string, std::vector<std::string>> by_folder;
  by_folder[directory.string()];
  const auto options =
      follow_links ? fs::directory_options::follow_directory_symlink : fs::directory_options::none;
  for (auto it = fs::recursive_directory_iterator(directory, options);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory()) {
      by_folder[it->path().string()];
    } else if (it->is_regular_file() && is_image_name(it->path().filename().string())) {
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

std::vector<std::string> class_folders(const ImageDirectoryOptions& o) {
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

Tensor label_tensor(int32_t label, const ImageDirectoryOptions& o, int64_t classes) {
  switch (o.label_mode) {
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

Tensor load_image(const std::string& path, const ImageDirectoryOptions& o) {
  Tensor image = read_image(path, o.channels);
  if (o.crop_to_aspect_ratio) image = crop_to_aspect_ratio(image, o.height, o.width);
  return resize_image(image, o.height, o.width, o.interpolation);
}

}  // namespace

LabelMode label_mode(const std::string& name) {
  if (name == "int") return LabelMode::integer;
  if (name == "categorical") return LabelMode::categorical;
  if (name == "binary") return LabelMode::binary;
  if (name == "none") return LabelMode::none;
  throw Error(detail::concat("unknown label_mode '", name, "' (int, categorical, binary or none)"));
}

ImageFiles index_image_directory(const ImageDirectoryOptions& o) {
  KILN_CHECK(fs::is_directory(o.directory), o.directory, ": no such directory");
  ImageFiles files;
  if (o.inferred_labels) {
    files.class_names = class_folders(o);
    for (size_t k = 0; k < files.class_names.size(); ++k)
      for (std::string& path :
           images_under(fs::path(o.directory) / files.class_names[k], o.follow_links)) {
        files.paths.push_back(std::move(path));
        files.labels.push_back(static_cast<int32_t>(k));
      }
  } else {
    KILN_CHECK(o.class_names.empty(), o.directory, ": class_names needs inferred labels");
    files.paths = images_under(o.directory, o.follow_links);
  }
  KILN_CHECK(!files.paths.empty(), o.directory, ": no images (", joined(kExtensions), ")",
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

ImageFiles image_subset(const ImageFiles& files, double validation_split, ImageSubset subset) {
  if (subset == ImageSubset::all || validation_split <= 0) return files;
  const size_t n = files.paths.size();
  const auto validating = static_cast<size_t>(validation_split * static_cast<double>(n));
  const size_t from = subset == ImageSubset::training ? 0 : n - validating;
  const size_t to = subset == ImageSubset::training ? n - validating : n;
  ImageFiles out{{files.paths.begin() + from, files.paths.begin() + to}, {}, files.class_names};
  if (!files.labels.empty())
    out.labels.assign(files.labels.begin() + from, files.labels.begin() + to);
  return out;
}

Dataset image_dataset(const ImageFiles& files, const ImageDirectoryOptions& options,
                      std::shared_ptr<std::atomic<int64_t>> skipped) {
  auto shared = std::make_shared<const ImageFiles>(files);
  const ImageDirectoryOptions o = options;
  const bool labelled = o.label_mode != LabelMode::none && !files.labels.empty();
  const auto classes = static_cast<int64_t>(files.class_names.size());
  std::vector<int64_t> indices(files.paths.size());
  for (size_t k = 0; k < indices.size(); ++k) indices[k] = static_cast<int64_t>(k);
  Dataset images =
      Dataset::from_tensor_slices(
          {from_vector(indices, {static_cast<int64_t>(indices.size())}, DType::i64, Device::cpu())})
          .map(
              [shared, o, labelled, classes, skipped](const Element& e) -> Element {
                const auto k = static_cast<size_t>(e[0].item<int64_t>());
                Tensor image;
                try {
                  image = load_image(shared->paths[k], o);
                } catch (const Error&) {
                  if (!o.skip_bad_files) throw;
                  if (skipped) ++*skipped;
                  return {};  // dropped below
                }
                if (!labelled) return {image};
                return {image, label_tensor(shared->labels[k], o, classes)};
              },
              o.num_parallel_calls);
  if (o.skip_bad_files) images = images.filter([](const Element& e) { return !e.empty(); });
  return images;
}

}  // namespace kiln::datasets
