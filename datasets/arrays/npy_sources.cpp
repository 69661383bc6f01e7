// The .npy and .npz sources: one class over bytes that hold a .npy file (a mapping, or a member
// read out of a zip archive), which it keeps alive.
#include <zip.h>

#include <algorithm>
#include <filesystem>

#include "kiln/datasets/arrays/array_source.h"
#include "kiln/datasets/arrays/mapped_file.h"
#include "kiln/datasets/npy_file.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

class NpyBytes : public ArraySource {
 public:
  NpyBytes(std::shared_ptr<const void> owner, std::string_view bytes, std::string name)
      : owner_(std::move(owner)), bytes_(bytes), name_(std::move(name)) {
    layout_ = parse_npy(bytes_, name_);
    KILN_CHECK(layout_.shape.rank() >= 1, name_, ": a scalar array has no rows");
    row_shape_ =
        Shape(std::vector<int64_t>(layout_.shape.dims().begin() + 1, layout_.shape.dims().end()));
    row_bytes_ = static_cast<size_t>(row_shape_.numel()) * dtype_size(layout_.dtype);
  }

  int64_t rows() const override { return layout_.shape[0]; }
  DType dtype() const override { return layout_.dtype; }
  const Shape& row_shape() const override { return row_shape_; }
  const std::string& name() const override { return name_; }

  Tensor read(int64_t begin, int64_t count) const override {
    KILN_CHECK(begin >= 0 && count >= 0 && begin + count <= rows(), name_, ": rows [", begin, ", ",
               begin + count, ") of ", rows());
    std::vector<int64_t> dims{count};
    dims.insert(dims.end(), row_shape_.dims().begin(), row_shape_.dims().end());
    Tensor out = Tensor::empty(Shape(dims), layout_.dtype, Device::cpu());
    copy_npy_data(bytes_.data() + layout_.data_offset + static_cast<size_t>(begin) * row_bytes_,
                  layout_.dtype, out);
    return out;
  }

 private:
  std::shared_ptr<const void> owner_;  // what holds bytes_
  std::string_view bytes_;
  std::string name_;
  NpyLayout layout_;
  Shape row_shape_;
  size_t row_bytes_ = 0;
};

// A member's bytes, read whole (at most what the archive's directory says it holds).
std::shared_ptr<const std::string> read_member(const std::string& path, const std::string& key) {
  int error = 0;
  std::unique_ptr<zip_t, int (*)(zip_t*)> archive(zip_open(path.c_str(), ZIP_RDONLY, &error),
                                                  zip_close);
  KILN_CHECK(archive != nullptr, "cannot open ", path, " as a .npz archive (zip error ", error,
             ")");
  const std::string member = key + ".npy";
  const zip_int64_t index = zip_name_locate(archive.get(), member.c_str(), 0);
  if (index < 0) {
    std::string keys;
    for (zip_int64_t i = 0; i < zip_get_num_entries(archive.get(), 0); ++i) {
      std::string name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
      if (name.ends_with(".npy")) name.resize(name.size() - 4);
      keys += (keys.empty() ? "" : ", ") + name;
    }
    throw Error(detail::concat(path, " has no array '", key, "' (it has: ", keys, ")"));
  }
  zip_stat_t stat;
  zip_stat_init(&stat);
  KILN_CHECK(zip_stat_index(archive.get(), static_cast<zip_uint64_t>(index), 0, &stat) == 0 &&
                 (stat.valid & ZIP_STAT_SIZE),
             path, ": cannot read the size of ", member);
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
      zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(index), 0), zip_fclose);
  KILN_CHECK(file != nullptr, path, ": cannot open ", member, ": ", zip_strerror(archive.get()));
  // Read as it comes, up to the size the directory gives: a directory that lies about the
  // size cannot make kiln allocate more than the member really holds.
  auto bytes = std::make_shared<std::string>();
  constexpr zip_uint64_t kChunk = zip_uint64_t{1} << 20;
  while (bytes->size() < stat.size) {
    const size_t at = bytes->size();
    bytes->resize(at + static_cast<size_t>(std::min(kChunk, stat.size - at)));
    const zip_int64_t got = zip_fread(file.get(), bytes->data() + at, bytes->size() - at);
    KILN_CHECK(got > 0, path, ": ", member, " is damaged (", at, " of ", stat.size, " bytes read)");
    bytes->resize(at + static_cast<size_t>(got));
  }
  return bytes;
}

}  // namespace

ArraySourcePtr open_npy(const std::string& path) {
  auto file = std::make_shared<const MappedFile>(path);
  const std::string_view bytes = file->bytes();
  return std::make_shared<NpyBytes>(std::move(file), bytes, path);
}

ArraySourcePtr open_npz(const std::string& path, const std::string& key) {
  KILN_CHECK(std::filesystem::exists(path), "no .npz file at ", path);
  std::shared_ptr<const std::string> bytes = read_member(path, key);
  const std::string_view view = *bytes;
  return std::make_shared<NpyBytes>(std::move(bytes), view, path + ":" + key);
}

ArraySourcePtr open_array(const std::string& reference) {
  // The member follows the first ".npz:", ".h5:" or ".hdf5:", so a folder's name may hold a colon.
  std::string path = reference, key;
  for (const char* extension : {".npz:", ".h5:", ".hdf5:"})
    if (const size_t at = reference.find(extension); at != std::string::npos) {
      const size_t colon = at + std::string_view(extension).size() - 1;
      path = reference.substr(0, colon);
      key = reference.substr(colon + 1);
      break;
    }
  KILN_CHECK(path.find(".npy:") == std::string::npos, reference,
             ": a .npy file holds one array; name no member");
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".npy") return open_npy(path);
  KILN_CHECK(extension == ".npz" || extension == ".h5" || extension == ".hdf5", reference,
             ": unknown array file type '", extension, "' (.npy, .npz, .h5 or .hdf5)");
  KILN_CHECK(!key.empty(), reference, ": name the array in the file, as file", extension, ":name");
  return extension == ".npz" ? open_npz(path, key) : open_hdf5(path, key);
}

}  // namespace kiln::datasets
