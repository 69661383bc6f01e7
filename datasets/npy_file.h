#pragma once
// NumPy's .npy format (versions 1.0, 2.0 and 3.0), for exchanging arrays with Python.
// Supported dtypes: <f4 <f8 <f2 <i4 <i8 |u1 |b1 (float32, float64, float16, int32, int64, uint8,
// bool), C order, little-endian.
#include <cstddef>
#include <string>
#include <string_view>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::datasets {

// What a .npy header says: the array's dtype and shape, and where its data starts.
struct NpyLayout {
  DType dtype = DType::f32;
  Shape shape;
  size_t data_offset = 0;
};

// The header of .npy bytes (a mapped file, a .npz member), checked against the bytes' length;
// errors name `path` as load_npy's do.
NpyLayout parse_npy(std::string_view bytes, const std::string& path);

// Copies into's bytes from `from` (.npy data of `dtype`), with NumPy's bools made 0 or 1.
void copy_npy_data(const char* from, DType dtype, Tensor& into);

// Reads an array into a new CPU tensor. Throws kiln::Error naming the path for a missing or
// truncated file, a malformed header, Fortran order, big-endian or unsupported dtypes. (Rows of a
// file larger than memory: open_npy in arrays/array_source.h.)
Tensor load_npy(const std::string& path);

// Writes a tensor (from any device) as a version 1.0 file (2.0 when the header needs it). The
// data goes to a temporary file in the same directory, is flushed to disk and then renamed over
// path, so readers never see a partial file. bfloat16 has no NumPy dtype and is rejected.
void save_npy(const std::string& path, const Tensor& tensor);

}  // namespace kiln::datasets
