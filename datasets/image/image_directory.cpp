#include "kiln/datasets/image/image_directory.h"

#include <algorithm>

#include "kiln/datasets/image/decode_image.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

const std::vector<std::string> kExtensions{".bmp", ".gif", ".jpeg", ".jpg", ".png", ".webp"};

Tensor load_image(const std::string& path, const ImageDirectoryOptions& o) {
  Tensor image = read_image(path, o.channels);
  if (o.crop_to_aspect_ratio) image = crop_to_aspect_ratio(image, o.height, o.width);
  return resize_image(image, o.height, o.width, o.interpolation);
}

}  // namespace

LabeledFiles index_image_directory(const ImageDirectoryOptions& options) {
  return index_labeled_files(options.files, kExtensions, "images");
}

Dataset image_dataset(const LabeledFiles& files, const ImageDirectoryOptions& options,
                      std::shared_ptr<std::atomic<int64_t>> skipped) {
  auto shared = std::make_shared<const LabeledFiles>(files);
  const ImageDirectoryOptions o = options;
  const bool labelled = o.files.label_mode != LabelMode::none && !files.labels.empty();
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
                return {image, label_tensor(shared->labels[k], o.files.label_mode, classes)};
              },
              o.num_parallel_calls);
  if (o.skip_bad_files) images = images.filter([](const Element& e) { return !e.empty(); });
  return images;
}

}  // namespace kiln::datasets
