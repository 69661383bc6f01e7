#include "kiln/datasets/npy_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "kiln/datasets/arrays/mapped_file.h"
#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

static_assert(std::endian::native == std::endian::little,
              ".npy data is read and written as little-endian without byte swapping");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kPreludeV1 = 10;  // magic, 2 version bytes, uint16 header length
constexpr size_t kPreludeV2 = 12;  // the same with a uint32 header length
constexpr size_t kAlignment = 64;  // NumPy pads the header so data starts 64-byte aligned

struct NpyDType {
  std::string_view descr;
  DType dtype;
};
constexpr std::array<NpyDType, 7> kDTypes{{{"<f4", DType::f32},
                                           {"<f8", DType::f64},
                                           {"<f2", DType::f16},
                                           {"<i4", DType::i32},
                                           {"<i8", DType::i64},
                                           {"|u1", DType::u8},
                                           {"|b1", DType::boolean}}};

// The value text of `key` in the header's Python dict literal, up to the next top-level comma.
std::string_view dict_value(std::string_view header, std::string_view key,
                            const std::string& path) {
  const std::string quoted = detail::concat("'", key, "'");
  size_t at = header.find(quoted);
  KILN_CHECK(at != std::string_view::npos, path, ": .npy header has no '", key,
             "' entry: ", header);
  at = header.find(':', at + quoted.size());
  KILN_CHECK(at != std::string_view::npos, path, ": malformed .npy header: ", header);
  size_t begin = header.find_first_not_of(' ', at + 1);
  size_t end = begin;
  // A tuple value contains commas: it ends at its closing parenthesis.
  if (begin < header.size() && header[begin] == '(')
    end = header.find(')', begin) + 1;
  else
    end = header.find_first_of(",}", begin);
  KILN_CHECK(begin < header.size() && end != std::string_view::npos && end > begin, path,
             ": malformed .npy header: ", header);
  return header.substr(begin, end - begin);
}

DType parse_descr(std::string_view value, const std::string& path) {
  KILN_CHECK(value.size() >= 2 && (value.front() == '\'' || value.front() == '"'), path,
             ": .npy descr ", value, " is not a simple dtype (structured arrays are unsupported)");
  const std::string_view descr = value.substr(1, value.size() - 2);
  for (const NpyDType& d : kDTypes)
    if (d.descr == descr) return d.dtype;
  KILN_CHECK(descr.empty() || descr[0] != '>', path, ": .npy dtype ", descr,
             " is big-endian; save it little-endian (arr.astype(arr.dtype.newbyteorder('<')))");
  throw Error(detail::concat(path, ": unsupported .npy dtype ", descr,
                             " (supported: <f4 <f8 <f2 <i4 <i8 |u1 |b1)"));
}

Shape parse_shape(std::string_view value, const std::string& path) {
  KILN_CHECK(value.size() >= 2 && value.front() == '(' && value.back() == ')', path,
             ": malformed .npy shape ", value);
  std::vector<int64_t> dims;
  std::string_view rest = value.substr(1, value.size() - 2);
  while (true) {
    const size_t begin = rest.find_first_not_of(" ,");
    if (begin == std::string_view::npos) break;
    rest.remove_prefix(begin);
    size_t used = 0;
    int64_t dim = 0;
    while (used < rest.size() && rest[used] >= '0' && rest[used] <= '9') {
      KILN_CHECK(dim <= (std::numeric_limits<int64_t>::max() - 9) / 10, path, ": .npy shape ",
                 value, " has a dim too large to be real");
      dim = dim * 10 + (rest[used++] - '0');
    }
    KILN_CHECK(used > 0, path, ": malformed .npy shape ", value);
    dims.push_back(dim);
    rest.remove_prefix(used);
  }
  return Shape(std::move(dims));
}

std::string descr_of(DType dtype, const std::string& path) {
  for (const NpyDType& d : kDTypes)
    if (d.dtype == dtype) return std::string(d.descr);
  throw Error(detail::concat(path, ": cannot save ", dtype_name(dtype),
                             " as .npy: NumPy has no such dtype (cast it to float32 first)"));
}

std::string header_dict(const Tensor& t, const std::string& path) {
  // Python's tuple syntax: "()", "(3,)", "(2, 3)".
  std::ostringstream shape;
  shape << "(";
  for (int i = 0; i < t.rank(); ++i) shape << (i ? ", " : "") << t.dim(i);
  shape << (t.rank() == 1 ? ",)" : ")");
  return detail::concat("{'descr': '", descr_of(t.dtype(), path),
                        "', 'fortran_order': False, 'shape': ", shape.str(), ", }");
}

// The full prelude + header, space-padded and newline-terminated to a multiple of kAlignment.
std::string encode_header(const std::string& dict) {
  const bool v1 = dict.size() + 1 + kPreludeV1 + kAlignment <= 65535;
  const size_t prelude = v1 ? kPreludeV1 : kPreludeV2;
  const size_t total = (prelude + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  const size_t header_len = total - prelude;
  std::string out(kMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  for (size_t i = 0; i < (v1 ? 2u : 4u); ++i)
    out += static_cast<char>((header_len >> (8 * i)) & 0xff);
  out += dict;
  out.append(header_len - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

// Writes all bytes to fd, retrying short writes.
void write_all(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    KILN_CHECK(n > 0, "cannot write ", path, ": ", std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

NpyLayout parse_npy(std::string_view bytes, const std::string& path) {
  KILN_CHECK(bytes.size() >= kPreludeV1 && bytes.substr(0, kMagic.size()) == kMagic, path,
             ": not a .npy file (bad magic)");
  const auto byte = [&](size_t i) { return size_t{static_cast<uint8_t>(bytes[i])}; };
  const int major = static_cast<int>(byte(6));
  KILN_CHECK(major >= 1 && major <= 3, path, ": unsupported .npy version ", major, ".", byte(7));
  size_t header_len = byte(8) | (byte(9) << 8);
  if (major >= 2) {
    KILN_CHECK(bytes.size() >= kPreludeV2, path, ": truncated .npy header");
    header_len |= (byte(10) << 16) | (byte(11) << 24);
  }
  const size_t prelude_bytes = major >= 2 ? kPreludeV2 : kPreludeV1;
  KILN_CHECK(header_len <= bytes.size() - prelude_bytes, path, ": truncated .npy header (",
             header_len, " bytes announced, the file has ", bytes.size(), ")");
  const std::string_view header = bytes.substr(prelude_bytes, header_len);

  NpyLayout layout;
  layout.dtype = parse_descr(dict_value(header, "descr", path), path);
  const std::string_view order = dict_value(header, "fortran_order", path);
  KILN_CHECK(order == "False", path,
             ": .npy array is in Fortran order; save it in C order (np.ascontiguousarray)");
  layout.shape = parse_shape(dict_value(header, "shape", path), path);
  layout.data_offset = prelude_bytes + header_len;
  // Checked before anything is allocated: a corrupt shape must not ask for more than the file
  // holds (or overflow the byte count into a small buffer).
  const size_t available = bytes.size() - layout.data_offset;
  uint64_t needed = dtype_size(layout.dtype);
  bool overflow = false;
  bool empty = false;
  for (int i = 0; i < layout.shape.rank(); ++i) {
    overflow =
        __builtin_mul_overflow(needed, static_cast<uint64_t>(layout.shape[i]), &needed) || overflow;
    empty = empty || layout.shape[i] == 0;
  }
  KILN_CHECK(empty || (!overflow && needed <= available), path,
             ": truncated .npy data: ", layout.shape, " ", dtype_name(layout.dtype), " needs ",
             overflow ? "over 2^64" : std::to_string(needed), " bytes, file has ", available);
  return layout;
}

void copy_npy_data(const char* from, DType dtype, Tensor& into) {
  std::memcpy(into.raw_data(), from, into.nbytes());
  if (dtype == DType::boolean) {
    // Any nonzero byte is true in NumPy; a C++ bool must hold exactly 0 or 1.
    auto* bytes = static_cast<uint8_t*>(into.raw_data());
    for (int64_t i = 0; i < into.numel(); ++i) bytes[i] = bytes[i] != 0;
  }
}

Tensor load_npy(const std::string& path) {
  const MappedFile file(path);
  const NpyLayout layout = parse_npy(file.bytes(), path);
  Tensor out = Tensor::empty(layout.shape, layout.dtype, Device::cpu());
  copy_npy_data(file.bytes().data() + layout.data_offset, layout.dtype, out);
  return out;
}

void save_npy(const std::string& path, const Tensor& tensor) {
  KILN_CHECK(tensor.defined() && !tensor.is_symbolic(), "save_npy(", path,
             "): the tensor has no data (undefined or symbolic)");
  const Tensor host = tensor.to(Device::cpu());
  const std::string header = encode_header(header_dict(host, path));

  // A name unique within this process; the pid keeps processes apart.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  KILN_CHECK(fd >= 0, "cannot create ", tmp, ": ", std::strerror(errno));
  try {
    write_all(fd, header.data(), header.size(), tmp);
    write_all(fd, static_cast<const char*>(host.raw_data()), host.nbytes(), tmp);
    KILN_CHECK(::fsync(fd) == 0, "cannot flush ", tmp, ": ", std::strerror(errno));
  } catch (...) {
    ::close(fd);
    std::filesystem::remove(tmp);
    throw;
  }
  ::close(fd);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp);
  KILN_CHECK(!ec, "cannot rename ", tmp, " to ", path, ": ", ec.message());
}

}  // namespace kiln::datasets
