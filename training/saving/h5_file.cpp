#include "kiln/training/saving/h5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <functional>

#include "kiln/framework/core/error.h"

namespace kiln::saving {
namespace {

// HDF5 prints its error stack to stderr by default; kiln reports its own errors instead.
void silence_hdf5() {
  static const bool once = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

H5Handle owned(hid_t id, herr_t (*close)(hid_t), const std::string& what) {
  KILN_CHECK(id >= 0, what);
  return H5Handle(id, close);
}

std::string join(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

// h5py writes bool as an 8-bit enum {FALSE: 0, TRUE: 1}; so does kiln.
H5Handle bool_type() {
  const hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
  int8_t v = 0;
  H5Tenum_insert(t, "FALSE", &v);
  v = 1;
  H5Tenum_insert(t, "TRUE", &v);
  return H5Handle(t, H5Tclose);
}

// The in-memory HDF5 type of a kiln dtype (HDF5 converts the file's type to it on read).
hid_t native_type(DType dtype, H5Handle& keep) {
  switch (dtype) {
    case DType::f32:
      return H5T_NATIVE_FLOAT;
    case DType::f64:
      return H5T_NATIVE_DOUBLE;
    case DType::i32:
      return H5T_NATIVE_INT32;
    case DType::i64:
      return H5T_NATIVE_INT64;
    case DType::u8:
      return H5T_NATIVE_UINT8;
    case DType::boolean:
      keep = bool_type();
      return keep.id();
    default:
      return -1;
  }
}

// The kiln dtype a stored type reads as: floats of 4 or fewer bytes as f32, integers by size
// and sign, the 1-byte enum as bool.
std::optional<DType> dtype_of_type(hid_t type) {
  const size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_FLOAT:
      return size <= 4 ? DType::f32 : DType::f64;
    case H5T_INTEGER:
      if (H5Tget_sign(type) == H5T_SGN_NONE) return size == 1 ? DType::u8 : DType::i64;
      return size <= 4 ? DType::i32 : DType::i64;
    case H5T_ENUM:
      if (size == 1) return DType::boolean;
      return std::nullopt;
    case H5T_STRING:
      return DType::string;
    default:
      return std::nullopt;
  }
}

// The variable-length UTF-8 string type h5py writes str data as.
H5Handle string_type() {
  const H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id(), H5T_VARIABLE);
  H5Tset_cset(type.id(), H5T_CSET_UTF8);
  return type;
}

// `n` strings stored as `type` (variable-length or fixed-width) in `space`, read by
// read(memory type, buffer); `what` names them in errors.
std::vector<std::string> read_strings(hid_t type, hid_t space, size_t n,
                                      const std::function<herr_t(hid_t, void*)>& read,
                                      const std::string& what) {
  std::vector<std::string> out;
  if (H5Tis_variable_str(type) > 0) {
    const H5Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.id(), H5T_VARIABLE);
    H5Tset_cset(memory.id(), H5Tget_cset(type));
    std::vector<char*> pointers(n, nullptr);
    KILN_CHECK(read(memory.id(), pointers.data()) >= 0, "cannot read ", what);
    for (char* p : pointers) out.emplace_back(p == nullptr ? "" : p);
    H5Dvlen_reclaim(memory.id(), space, H5P_DEFAULT, pointers.data());
  } else {
    const size_t width = H5Tget_size(type);
    std::vector<char> buffer(n * width);
    KILN_CHECK(read(type, buffer.data()) >= 0, "cannot read ", what);
    for (size_t i = 0; i < n; ++i) {
      const char* begin = buffer.data() + i * width;
      out.emplace_back(begin, std::find(begin, begin + width, '\0'));
    }
  }
  return out;
}

}  // namespace

H5Handle::H5Handle(int64_t id, int (*close)(int64_t))
    : id_(new int64_t(id), [close](const int64_t* p) {
        close(*p);
        delete p;
      }) {}

H5Group::H5Group(H5Handle handle, std::string file, std::string path)
    : handle_(std::move(handle)), file_(std::move(file)), path_(std::move(path)) {}

std::string H5Group::where() const {
  return file_ + ":" + path_;
}

bool H5Group::has(const std::string& name) const {
  // H5Lexists needs each parent of a nested name to exist, so walk down.
  std::string prefix;
  size_t start = 0;
  while (true) {
    const size_t slash = name.find('/', start);
    prefix = name.substr(0, slash);
    if (H5Lexists(handle_.id(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
}

bool H5Group::has_group(const std::string& name) const {
  if (!has(name)) return false;
  H5O_info_t info;
  return H5Oget_info_by_name(handle_.id(), name.c_str(), &info, H5P_DEFAULT) >= 0 &&
         info.type == H5O_TYPE_GROUP;
}

H5Group H5Group::group(const std::string& name) {
  if (has_group(name)) return open_group(name);
  const H5Handle plist(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(plist.id(), 1);
  return H5Group(owned(H5Gcreate2(handle_.id(), name.c_str(), plist.id(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Gclose, "cannot create group '" + name + "' in " + where()),
                 file_, join(path_, name));
}

H5Group H5Group::open_group(const std::string& name) const {
  if (!has_group(name)) {
    std::string present;
    for (const std::string& c : children()) present += (present.empty() ? "" : ", ") + c;
    throw Error(detail::concat(where(), " has no group '", name,
                               "' (it has: ", present.empty() ? "nothing" : present, ")"));
  }
  return H5Group(owned(H5Gopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Gclose,
                       "cannot open group '" + name + "' in " + where()),
                 file_, join(path_, name));
}

uint64_t H5Group::address() const {
  H5O_info_t info;
  KILN_CHECK(H5Oget_info2(handle_.id(), &info, H5O_INFO_BASIC) >= 0, "cannot read ", where());
  return static_cast<uint64_t>(info.addr);
}

std::vector<std::string> H5Group::children() const {
  std::vector<std::string> names;
  H5Literate(
      handle_.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  return names;
}

void H5Group::write(const std::string& name, const Tensor& value) {
  const Tensor host = value.to(Device::cpu());
  H5Handle keep;
  const bool text = host.dtype() == DType::string;
  if (text) keep = string_type();
  const hid_t type = text ? keep.id() : native_type(host.dtype(), keep);
  KILN_CHECK(type >= 0, where(), "/", name, ": kiln cannot store ", dtype_name(host.dtype()),
             " tensors in HDF5 (cast to float32 first)");
  std::vector<hsize_t> dims;
  for (int64_t d : host.shape().dims()) dims.push_back(static_cast<hsize_t>(d));
  const H5Handle space(dims.empty()
                           ? H5Screate(H5S_SCALAR)
                           : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                       H5Sclose);
  if (has(name)) H5Ldelete(handle_.id(), name.c_str(), H5P_DEFAULT);
  const H5Handle dataset = owned(H5Dcreate2(handle_.id(), name.c_str(), type, space.id(),
                                            H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                 H5Dclose, "cannot create dataset '" + name + "' in " + where());
  std::vector<const char*> pointers;  // strings are written through pointers to their bytes
  if (text)
    for (int64_t i = 0; i < host.numel(); ++i)
      pointers.push_back(host.data<std::string>()[i].c_str());
  KILN_CHECK(host.numel() == 0 ||
                 H5Dwrite(dataset.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                          text ? static_cast<const void*>(pointers.data()) : host.raw_data()) >= 0,
             "cannot write ", where(), "/", name);
}

H5DatasetInfo H5Group::info(const std::string& name) const {
  KILN_CHECK(has(name) && !has_group(name), where(), " has no dataset '", name, "'");
  const H5Handle dataset = owned(H5Dopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Dclose,
                                 "cannot open dataset " + where() + "/" + name);
  const H5Handle space(H5Dget_space(dataset.id()), H5Sclose);
  const H5Handle type(H5Dget_type(dataset.id()), H5Tclose);
  const int rank = H5Sget_simple_extent_ndims(space.id());
  KILN_CHECK(rank >= 0, "cannot read the shape of ", where(), "/", name);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
  std::vector<int64_t> shape(dims.begin(), dims.end());
  return {Shape(std::move(shape)), dtype_of_type(type.id())};
}

Tensor H5Group::read(const std::string& name) const {
  const H5DatasetInfo meta = info(name);
  KILN_CHECK(meta.dtype.has_value(), where(), "/", name,
             " holds values of a type kiln does not read (not numbers, bools or strings)");
  Tensor out = Tensor::empty(meta.shape, *meta.dtype, Device::cpu());
  H5Handle keep;
  const hid_t type = native_type(*meta.dtype, keep);
  const H5Handle dataset = owned(H5Dopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Dclose,
                                 "cannot open dataset " + where() + "/" + name);
  if (out.dtype() == DType::string) {
    const H5Handle stored(H5Dget_type(dataset.id()), H5Tclose);
    const H5Handle space(H5Dget_space(dataset.id()), H5Sclose);
    std::vector<std::string> text = read_strings(
        stored.id(), space.id(), static_cast<size_t>(out.numel()),
        [&](hid_t memory, void* buffer) {
          return H5Dread(dataset.id(), memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
        },
        where() + "/" + name);
    std::move(text.begin(), text.end(), out.data<std::string>());
    return out;
  }
  KILN_CHECK(out.numel() == 0 ||
                 H5Dread(dataset.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.raw_data()) >= 0,
             "cannot read ", where(), "/", name, " (truncated or corrupt file?)");
  return out;
}

void H5Group::set_attr(const std::string& name, const std::string& value) {
  set_attr(name, std::vector<std::string>{value});
}

void H5Group::set_attr(const std::string& name, const std::vector<std::string>& values) {
  const H5Handle type = string_type();
  const hsize_t n = values.size();
  // One string is stored as a scalar, as h5py stores a str attribute.
  const H5Handle space(
      values.size() == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (H5Aexists(handle_.id(), name.c_str()) > 0) H5Adelete(handle_.id(), name.c_str());
  const H5Handle attr =
      owned(H5Acreate2(handle_.id(), name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose, "cannot create attribute '" + name + "' on " + where());
  std::vector<const char*> pointers;
  for (const std::string& v : values) pointers.push_back(v.c_str());
  KILN_CHECK(H5Awrite(attr.id(), type.id(), pointers.data()) >= 0, "cannot write attribute '", name,
             "' on ", where());
}

bool H5Group::has_attr(const std::string& name) const {
  return H5Aexists(handle_.id(), name.c_str()) > 0;
}

std::vector<std::string> H5Group::attr_strings(const std::string& name) const {
  KILN_CHECK(has_attr(name), where(), " has no attribute '", name, "'");
  const H5Handle attr = owned(H5Aopen(handle_.id(), name.c_str(), H5P_DEFAULT), H5Aclose,
                              "cannot open attribute '" + name + "' on " + where());
  const H5Handle type(H5Aget_type(attr.id()), H5Tclose);
  const H5Handle space(H5Aget_space(attr.id()), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.id());
  KILN_CHECK(count >= 0, "cannot read attribute '", name, "' on ", where());
  // The legacy Keras writer stores an empty name list as an empty float array.
  if (count == 0) return {};
  KILN_CHECK(H5Tget_class(type.id()) == H5T_STRING, "attribute '", name, "' on ", where(),
             " is not a string");
  return read_strings(
      type.id(), space.id(), static_cast<size_t>(count),
      [&](hid_t memory, void* buffer) { return H5Aread(attr.id(), memory, buffer); },
      "attribute '" + name + "' on " + where());
}

std::string H5Group::attr_string(const std::string& name) const {
  const std::vector<std::string> values = attr_strings(name);
  KILN_CHECK(values.size() == 1, "attribute '", name, "' on ", where(), " holds ", values.size(),
             " strings, not one");
  return values[0];
}

H5File H5File::create(const std::string& path) {
  silence_hdf5();
  return H5File(owned(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                      "cannot create the HDF5 file " + path),
                path);
}

H5File H5File::open(const std::string& path) {
  silence_hdf5();
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  KILN_CHECK(is_hdf5 >= 0, "cannot open ", path, " (no such file, or it cannot be read)");
  KILN_CHECK(is_hdf5 > 0, path, " is not an HDF5 file (or it is truncated or corrupt)");
  return H5File(owned(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                      "cannot open the HDF5 file " + path + " (truncated or corrupt?)"),
                path);
}

namespace {

// HDF5's core driver: the file lives in memory, never written to disk.
H5Handle in_memory_access() {
  const H5Handle access =
      owned(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot make HDF5 properties");
  KILN_CHECK(H5Pset_fapl_core(access.id(), size_t{1} << 20, /*backing_store=*/0) >= 0,
             "cannot select HDF5's in-memory driver");
  return access;
}

// HDF5 tells open files apart by name, in-memory ones too: each gets a name of its own, so
// two images of one archive entry (a save and a load of the same file) never meet.
std::string unique_memory_name(const std::string& name) {
  static std::atomic<uint64_t> count{0};
  return name + "#" + std::to_string(count++);
}

}  // namespace

H5File H5File::create_in_memory(const std::string& name) {
  silence_hdf5();
  const H5Handle access = in_memory_access();
  return H5File(
      owned(H5Fcreate(unique_memory_name(name).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.id()),
            H5Fclose, "cannot create the in-memory HDF5 file " + name),
      name);
}

H5File H5File::open_image(const std::string& bytes, const std::string& name) {
  silence_hdf5();
  const H5Handle access = in_memory_access();
  KILN_CHECK(H5Pset_file_image(access.id(), const_cast<char*>(bytes.data()), bytes.size()) >= 0,
             "cannot hand ", name, " to HDF5");
  return H5File(owned(H5Fopen(unique_memory_name(name).c_str(), H5F_ACC_RDONLY, access.id()),
                      H5Fclose, name + " is not an HDF5 file (or it is truncated or corrupt)"),
                name);
}

std::string H5File::image() const {
  flush();
  const ssize_t size = H5Fget_file_image(handle_.id(), nullptr, 0);
  KILN_CHECK(size >= 0, "cannot read the image of ", path_);
  std::string bytes(static_cast<size_t>(size), '\0');
  KILN_CHECK(H5Fget_file_image(handle_.id(), bytes.data(), bytes.size()) == size,
             "cannot read the image of ", path_);
  return bytes;
}

H5Group H5File::root() const {
  return H5Group(owned(H5Gopen2(handle_.id(), "/", H5P_DEFAULT), H5Gclose,
                       "cannot open the root group of " + path_),
                 path_, "/");
}

void H5File::flush() const {
  KILN_CHECK(H5Fflush(handle_.id(), H5F_SCOPE_GLOBAL) >= 0, "cannot flush ", path_);
}

}  // namespace kiln::saving
