#pragma once
// A small owner of HDF5 C API handles: files, groups, tensor datasets and string attributes,
// enough for Keras's weight files and kiln's checkpoints. Every failure is a kiln::Error naming
// the file and the object path (HDF5's own error printing is switched off).
//
//   H5File f = H5File::create_in_memory("model.weights.h5");
//   f.root().group("layers/dense/vars").write("0", kernel);
//   write_file_atomically("model.weights.h5", f.image());  // atomic_write.h
//   Tensor k = H5File::open("model.weights.h5").root().group("layers/dense/vars").read("0");
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::saving {

// An HDF5 id closed by its deleter when the last copy goes.
class H5Handle {
 public:
  H5Handle() = default;
  H5Handle(int64_t id, int (*close)(int64_t));
  int64_t id() const { return id_ ? *id_ : -1; }

 private:
  std::shared_ptr<int64_t> id_;
};

// A dataset's shape and element type, read without its data.
struct H5DatasetInfo {
  Shape shape;
  std::optional<DType> dtype;  // none: a type kiln has no tensor dtype for (strings, compounds)
};

class H5Group {
 public:
  H5Group(H5Handle handle, std::string file, std::string path);

  const std::string& path() const { return path_; }
  // "file.h5:/layers/dense" for errors.
  std::string where() const;

  bool has(const std::string& name) const;  // a child group or dataset (may be a/b/c)
  bool has_group(const std::string& name) const;
  // The child group, created (with any missing parents) when absent.
  H5Group group(const std::string& name);
  // The existing child group; an error naming it and this group's children when absent.
  H5Group open_group(const std::string& name) const;
  // Child names in HDF5's order (by name).
  std::vector<std::string> children() const;
  // Where the group lives in its file: links that reach one group (a cycle, or a group shared by
  // two parents) give one address, which walks over a file use to visit each group once.
  uint64_t address() const;

  void write(const std::string& name, const Tensor& value);
  Tensor read(const std::string& name) const;
  H5DatasetInfo info(const std::string& name) const;

  // String attributes (variable-length UTF-8 on write; fixed or variable length on read, as
  // h5py and the legacy Keras writer store them).
  void set_attr(const std::string& name, const std::string& value);
  void set_attr(const std::string& name, const std::vector<std::string>& values);
  bool has_attr(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  std::string attr_string(const std::string& name) const;

 private:
  H5Handle handle_;
  std::string file_;
  std::string path_;
};

class H5File {
 public:
  // Truncates an existing file. For tests and tools only: HDF5 writing a file of its own onto a
  // full disk fails to close it and crashed the process at exit. kiln's writers build the file
  // with create_in_memory and write its image() with write_file_atomically instead.
  static H5File create(const std::string& path);
  // Read-only; an error naming the path when it is missing or not an HDF5 file.
  static H5File open(const std::string& path);
  // A file held in memory only (an entry of a .keras zip, a checkpoint before it is written):
  // `name` names it in errors.
  static H5File create_in_memory(const std::string& name);
  // Read-only, from the bytes of an HDF5 file (copied); `name` names it in errors.
  static H5File open_image(const std::string& bytes, const std::string& name);
  // The bytes of the file as it stands (everything buffered included).
  std::string image() const;

  H5Group root() const;
  const std::string& path() const { return path_; }
  // Writes everything buffered to the file (before an fsync).
  void flush() const;

 private:
  H5File(H5Handle handle, std::string path) : handle_(std::move(handle)), path_(std::move(path)) {}
  H5Handle handle_;
  std::string path_;
};

}  // namespace kiln::saving
