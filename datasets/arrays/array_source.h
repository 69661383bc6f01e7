#pragma once
// Arrays whose first axis is the example and which stay where they are until rows are asked for:
// a memory-mapped .npy file, a member of a .npz archive, a dataset of an HDF5 file. The
// pipelines over them (array_dataset.h, timeseries.h) read rows as they go, so a file larger
// than memory trains.
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

class ArraySource {
 public:
  virtual ~ArraySource() = default;
  virtual int64_t rows() const = 0;
  virtual DType dtype() const = 0;
  // One row's shape: the array's without its first axis.
  virtual const Shape& row_shape() const = 0;
  // Rows [begin, begin + count) as a new CPU tensor [count, row_shape...].
  virtual Tensor read(int64_t begin, int64_t count) const = 0;
  // For messages: "x.npy", "train.npz:x_train", "train.h5:/features".
  virtual const std::string& name() const = 0;
};

using ArraySourcePtr = std::shared_ptr<const ArraySource>;

// A .npy file, mapped: rows are read from the page cache as they are asked for.
ArraySourcePtr open_npy(const std::string& path);

// Member `key` of a .npz archive (np.savez's key: "arr_0", or the keyword's name). Its bytes are
// read into memory when opened, as NumPy's np.load does for .npz files: a compressed member
// cannot be mapped.
ArraySourcePtr open_npz(const std::string& path, const std::string& key);

// Dataset `name` of an HDF5 file, read in slabs of rows (the file stays open).
ArraySourcePtr open_hdf5(const std::string& path, const std::string& name);

// "file.npy", "file.npz:key" or "file.h5:/name" (also .hdf5): the array a run file names.
ArraySourcePtr open_array(const std::string& reference);

}  // namespace kiln::datasets
