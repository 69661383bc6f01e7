// .npy: round trips for every supported dtype, files written by NumPy, and clear errors.
#include <gmock/gmock.h>

#include <fstream>
#include <sstream>

#include "kiln/datasets/npy_file.h"
#include "tests/datasets/dataset_test_util.h"
#include "tests/datasets/npy_numpy_fixtures.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

template <size_t N>
std::string bytes_of(const char (&literal)[N]) {
  return std::string(literal, N - 1);  // the fixtures hold NULs: keep every byte
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

class NpyRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(NpyRoundTrip, KeepsShapeDTypeAndBytes) {
  const TempDir dir;
  const DType dtype = GetParam();
  const Tensor original = arange(-3, 9, 1, dtype).view({2, 3, 2});
  const std::string path = dir.file("a.npy");
  save_npy(path, original);
  const Tensor loaded = load_npy(path);
  EXPECT_EQ(loaded.dtype(), dtype);
  EXPECT_EQ(loaded.shape(), original.shape());
  EXPECT_EQ(loaded.to_vector<double>(), original.to_vector<double>());
}

INSTANTIATE_TEST_SUITE_P(EveryDType, NpyRoundTrip,
                         ::testing::Values(DType::f32, DType::f64, DType::f16, DType::i32,
                                           DType::i64, DType::u8, DType::boolean),
                         [](const auto& p) { return std::string(dtype_name(p.param)); });

TEST(Npy, RoundTripsScalarsAndEmptyArrays) {
  const TempDir dir;
  save_npy(dir.file("s.npy"), scalar(2.5, DType::f64));
  const Tensor s = load_npy(dir.file("s.npy"));
  EXPECT_EQ(s.shape(), Shape({}));
  EXPECT_EQ(s.item<double>(), 2.5);
  save_npy(dir.file("e.npy"), zeros({0, 4}));
  EXPECT_EQ(load_npy(dir.file("e.npy")).shape(), Shape({0, 4}));
}

TEST(Npy, WritesExactlyWhatNumPyWrites) {
  const TempDir dir;
  save_npy(dir.file("m.npy"), arange(0, 6, 1, DType::f32).view({2, 3}));
  EXPECT_EQ(read_file(dir.file("m.npy")), bytes_of(kFloat32Matrix));
}

TEST(Npy, ReadsFilesWrittenByNumPy) {
  const TempDir dir;
  const Tensor m = load_npy(write_file(dir, "m.npy", bytes_of(kFloat32Matrix)));
  EXPECT_EQ(m.shape(), Shape({2, 3}));
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  const Tensor v2 = load_npy(write_file(dir, "v2.npy", bytes_of(kInt64Version2)));
  EXPECT_EQ(v2.dtype(), DType::i64);
  EXPECT_EQ(v2.to_vector<int64_t>(), (std::vector<int64_t>{1, -2, 3}));

  const Tensor b = load_npy(write_file(dir, "b.npy", bytes_of(kBoolVector)));
  EXPECT_EQ(b.dtype(), DType::boolean);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));

  const Tensor s = load_npy(write_file(dir, "s.npy", bytes_of(kInt32Scalar)));
  EXPECT_EQ(s.shape(), Shape({}));
  EXPECT_EQ(s.item<int32_t>(), 7);
}

TEST(Npy, SaveReplacesAnExistingFileAndLeavesNoTemporaries) {
  const TempDir dir;
  const std::string path = dir.file("w.npy");
  save_npy(path, zeros({100}));
  save_npy(path, ones({3}, DType::i32));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(), (std::vector<int32_t>{1, 1, 1}));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(Npy, FortranOrderAndBigEndianAreRejectedClearly) {
  const TempDir dir;
  const std::string fortran = write_file(dir, "f.npy", bytes_of(kFortranOrder));
  EXPECT_THAT(error_of([&] { (void)load_npy(fortran); }),
              HasSubstr(fortran + ": .npy array is in Fortran order"));
  const std::string big = write_file(dir, "be.npy", bytes_of(kBigEndian));
  EXPECT_THAT(error_of([&] { (void)load_npy(big); }),
              HasSubstr(big + ": .npy dtype >f4 is big-endian"));
}

TEST(Npy, TruncatedAndForeignFilesNameThePath) {
  const TempDir dir;
  const std::string full = bytes_of(kFloat32Matrix);
  const std::string cut = write_file(dir, "cut.npy", full.substr(0, full.size() - 4));
  EXPECT_THAT(error_of([&] { (void)load_npy(cut); }),
              HasSubstr(cut + ": truncated .npy data: [2, 3] float32 needs 24 bytes, file has 20"));
  const std::string text = write_file(dir, "t.npy", "hello, world");
  EXPECT_THAT(error_of([&] { (void)load_npy(text); }), HasSubstr(text + ": not a .npy file"));
  EXPECT_THAT(error_of([&] { (void)load_npy(dir.file("missing.npy")); }),
              HasSubstr("cannot open " + dir.file("missing.npy") + ": No such file"));
}

// A version 1.0 file with this header dict and data.
std::string npy_file(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

// A corrupt header must not allocate what the file cannot hold, nor wrap the byte count around.
TEST(Npy, ShapesLargerThanTheFileAreRefusedBeforeAllocating) {
  struct Case {
    const char* dict;
    std::string data;
    const char* error;  // after the path
  };
  const Case cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }",
       std::string(8, '\0'),
       ": truncated .npy data: [4611686018427387904] float32 needs over 2^64 bytes, file has 8"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", "",
       ": truncated .npy data: [100000, 100000] float64 needs 80000000000 bytes, file has 0"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "",
       ": .npy shape (99999999999999999999,) has a dim too large to be real"},
  };
  const TempDir dir;
  for (const Case& c : cases) {
    const std::string path = write_file(dir, "corrupt.npy", npy_file(c.dict, c.data));
    EXPECT_THAT(error_of([&] { (void)load_npy(path); }), HasSubstr(path + c.error));
  }
}

TEST(Npy, UnsupportedDTypesAreErrors) {
  const TempDir dir;
  EXPECT_THAT(error_of([&] { save_npy(dir.file("x.npy"), zeros({2}, DType::bf16)); }),
              HasSubstr("cannot save bfloat16 as .npy"));
  std::string u2 = bytes_of(kFloat32Matrix);
  u2.replace(u2.find("<f4"), 3, "<u2");
  const std::string path = write_file(dir, "u2.npy", u2);
  EXPECT_THAT(error_of([&] { (void)load_npy(path); }), HasSubstr("unsupported .npy dtype <u2"));
}

}  // namespace
}  // namespace kiln::datasets::testing
