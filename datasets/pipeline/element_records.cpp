#include "kiln/datasets/pipeline/element_records.h"

#include <cstring>
#include <vector>

#include "kiln/framework/core/error.h"

namespace kiln::datasets {
namespace {

constexpr char kMagic[] = "kiln element records 1\n";
constexpr uint32_t kEndRecord = 0xFFFFFFFFu;
// Bounds a damaged file cannot make the reader exceed.
constexpr uint32_t kMaxComponents = 1u << 16;
constexpr int kMaxRank = 32;

template <typename T>
void put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(T));
}

}  // namespace

ElementRecordWriter::ElementRecordWriter(std::string path)
    : path_(std::move(path)), out_(path_, std::ios::binary | std::ios::trunc) {
  KILN_CHECK(out_.good(), path_, ": cannot create the cache file");
  out_.write(kMagic, sizeof(kMagic) - 1);
}

void ElementRecordWriter::write(const Element& element) {
  put(out_, static_cast<uint32_t>(element.size()));
  for (const Tensor& t : element) {
    put(out_, static_cast<uint8_t>(t.dtype()));
    put(out_, static_cast<uint8_t>(t.rank()));
    for (int a = 0; a < t.rank(); ++a) put(out_, t.dim(a));
    if (t.dtype() == DType::string) {
      const std::string* s = t.data<std::string>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        put(out_, static_cast<uint64_t>(s[i].size()));
        out_.write(s[i].data(), static_cast<std::streamsize>(s[i].size()));
      }
    } else {
      out_.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.nbytes()));
    }
  }
  ++count_;
}

void ElementRecordWriter::finish() {
  put(out_, kEndRecord);
  put(out_, count_);
  out_.close();
  KILN_CHECK(!out_.fail(), path_, ": writing the cache file failed (is the disk full?)");
}

ElementRecordReader::ElementRecordReader(std::string path)
    : path_(std::move(path)), in_(path_, std::ios::binary) {
  KILN_CHECK(in_.good(), path_, ": cannot open the cache file");
  in_.seekg(0, std::ios::end);
  file_size_ = static_cast<uint64_t>(in_.tellg());
  in_.seekg(0, std::ios::beg);
  char magic[sizeof(kMagic) - 1];
  in_.read(magic, sizeof(magic));
  KILN_CHECK(in_.good() && std::memcmp(magic, kMagic, sizeof(magic)) == 0, path_,
             ": not a kiln cache file (delete it, and the next pass writes a new one)");
}

std::optional<Element> ElementRecordReader::next() {
  if (ended_) return std::nullopt;
  const auto fail = [&](const char* what) {
    throw Error(detail::concat(path_, ": element ", index_, ": ", what,
                               " (delete the cache file, and the next pass writes a new one)"));
  };
  const auto get = [&]<typename T>(T& value) {
    in_.read(reinterpret_cast<char*>(&value), sizeof(T));
    if (!in_) fail("the file ends inside it");
  };
  uint32_t components = 0;
  in_.read(reinterpret_cast<char*>(&components), sizeof(components));
  if (!in_) fail("the file ends before it, without its end record");
  if (components == kEndRecord) {
    int64_t count = 0;
    get(count);
    if (count != index_) fail("the end record counts another number of elements");
    ended_ = true;
    return std::nullopt;
  }
  if (components > kMaxComponents) fail("damaged component count");
  Element element;
  for (uint32_t c = 0; c < components; ++c) {
    uint8_t code = 0;
    uint8_t rank = 0;
    get(code);
    get(rank);
    if (code >= kNumDTypes || rank > kMaxRank) fail("damaged component header");
    const auto dtype = static_cast<DType>(code);
    std::vector<int64_t> dims(rank);
    uint64_t numel = 1;
    for (int64_t& d : dims) {
      get(d);
      const auto size = static_cast<uint64_t>(d);
      if (d < 0 || (size > 0 && numel > file_size_ / size)) fail("damaged component shape");
      numel *= size;
    }
    Tensor t = Tensor::empty(Shape(dims), dtype, Device::cpu());
    if (dtype == DType::string) {
      std::string* s = t.data<std::string>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        uint64_t size = 0;
        get(size);
        if (size > file_size_) fail("damaged string length");
        s[i].resize(size);
        in_.read(s[i].data(), static_cast<std::streamsize>(size));
        if (!in_) fail("the file ends inside it");
      }
    } else {
      in_.read(static_cast<char*>(t.raw_data()), static_cast<std::streamsize>(t.nbytes()));
      if (!in_) fail("the file ends inside it");
    }
    element.push_back(std::move(t));
  }
  ++index_;
  return element;
}

}  // namespace kiln::datasets
