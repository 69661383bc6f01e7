// The HDF5 source: a dataset of a file read a slab of rows at a time (H5Dread over a hyperslab),
// converted by HDF5 into kiln's dtype. Debian's HDF5 is built thread-safe, so a prefetch thread
// may read while the training thread writes a checkpoint.
#include <hdf5.h>

#include <filesystem>
#include <vector>

#include "kiln/datasets/arrays/array_source.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

// An HDF5 handle closed by `close` when the last copy goes.
using Handle = std::shared_ptr<const hid_t>;
Handle handle(hid_t id, herr_t (*close)(hid_t)) {
  return Handle(new hid_t(id), [close](const hid_t* h) {
    if (*h >= 0) close(*h);
    delete h;
  });
}

// kiln's dtype of an HDF5 type, with the memory type HDF5 converts to; h5py's bools are an enum
// over int8.
std::pair<DType, hid_t> dtype_of(hid_t type, const std::string& name) {
  const H5T_class_t type_class = H5Tget_class(type);
  const size_t size = H5Tget_size(type);
  if (type_class == H5T_FLOAT && size == 4) return {DType::f32, H5T_NATIVE_FLOAT};
  if (type_class == H5T_FLOAT && size == 8) return {DType::f64, H5T_NATIVE_DOUBLE};
  if (type_class == H5T_INTEGER) {
    const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    if (is_signed && size == 4) return {DType::i32, H5T_NATIVE_INT32};
    if (is_signed && size == 8) return {DType::i64, H5T_NATIVE_INT64};
    if (!is_signed && size == 1) return {DType::u8, H5T_NATIVE_UINT8};
  }
  if (type_class == H5T_ENUM && size == 1) return {DType::boolean, H5T_NATIVE_UINT8};
  throw Error(detail::concat(name, ": an HDF5 type kiln does not read (float32, float64, int32, ",
                             "int64, uint8 or bool)"));
}

class Hdf5Source : public ArraySource {
 public:
  Hdf5Source(const std::string& path, const std::string& dataset) : name_(path + ":" + dataset) {
    KILN_CHECK(std::filesystem::exists(path), "no HDF5 file at ", path);
    KILN_CHECK(H5Fis_hdf5(path.c_str()) > 0, path, " is not an HDF5 file");
    file_ = handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    KILN_CHECK(*file_ >= 0, "cannot open ", path, " as an HDF5 file");
    KILN_CHECK(H5Lexists(*file_, dataset.c_str(), H5P_DEFAULT) > 0, path, " has no dataset '",
               dataset, "'");
    dataset_ = handle(H5Dopen2(*file_, dataset.c_str(), H5P_DEFAULT), H5Dclose);
    KILN_CHECK(*dataset_ >= 0, name_, " is not a dataset");
    const Handle type = handle(H5Dget_type(*dataset_), H5Tclose);
    std::tie(dtype_, memory_type_) = dtype_of(*type, name_);
    const Handle space = handle(H5Dget_space(*dataset_), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(*space);
    KILN_CHECK(rank >= 1, name_, ": a scalar dataset has no rows");
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    H5Sget_simple_extent_dims(*space, dims.data(), nullptr);
    rows_ = static_cast<int64_t>(dims[0]);
    row_shape_ = Shape(std::vector<int64_t>(dims.begin() + 1, dims.end()));
  }

  int64_t rows() const override { return rows_; }
  DType dtype() const override { return dtype_; }
  const Shape& row_shape() const override { return row_shape_; }
  const std::string& name() const override { return name_; }

  Tensor read(int64_t begin, int64_t count) const override {
    KILN_CHECK(begin >= 0 && count >= 0 && begin + count <= rows_, name_, ": rows [", begin, ", ",
               begin + count, ") of ", rows_);
    std::vector<int64_t> dims{count};
    dims.insert(dims.end(), row_shape_.dims().begin(), row_shape_.dims().end());
    Tensor out = Tensor::empty(Shape(dims), dtype_, Device::cpu());
    if (count == 0) return out;
    std::vector<hsize_t> start(dims.size(), 0), size(dims.begin(), dims.end());
    start[0] = static_cast<hsize_t>(begin);
    const Handle file_space = handle(H5Dget_space(*dataset_), H5Sclose);
    H5Sselect_hyperslab(*file_space, H5S_SELECT_SET, start.data(), nullptr, size.data(), nullptr);
    const Handle memory_space =
        handle(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr), H5Sclose);
    KILN_CHECK(H5Dread(*dataset_, memory_type_, *memory_space, *file_space, H5P_DEFAULT,
                       out.raw_data()) >= 0,
               name_, ": cannot read rows [", begin, ", ", begin + count, ")");
    if (dtype_ == DType::boolean) {
      auto* bytes = static_cast<uint8_t*>(out.raw_data());
      for (int64_t i = 0; i < out.numel(); ++i) bytes[i] = bytes[i] != 0;
    }
    return out;
  }

 private:
  std::string name_;
  Handle file_, dataset_;
  DType dtype_ = DType::f32;
  hid_t memory_type_ = H5T_NATIVE_FLOAT;
  int64_t rows_ = 0;
  Shape row_shape_;
};

}  // namespace

ArraySourcePtr open_hdf5(const std::string& path, const std::string& name) {
  return std::make_shared<Hdf5Source>(path, name);
}

}  // namespace kiln::datasets
