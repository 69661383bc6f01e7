// The HDF5 wrapper: tensors of every stored dtype and string attributes round-trip; missing,
// foreign and truncated files fail with errors that name them.
#include "kiln/training/saving/h5_file.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>

#include "kiln/framework/core/error.h"
#include "kiln/training/saving/inspect.h"

namespace kiln::saving {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("kiln_h5_" + name)).string();
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(H5File, TensorsAndAttributesRoundTrip) {
  const std::string path = temp_path("round_trip.h5");
  const Tensor f32 = from_vector(std::vector<float>{1.5F, -2, 3, 4, 5, 6}, Shape({2, 3}));
  const Tensor f64 = from_vector(std::vector<double>{0.1, 0.2}, Shape({2}));
  const Tensor i32 = from_vector(std::vector<int32_t>{-7, 8}, Shape({2, 1}));
  const Tensor i64 = from_vector(std::vector<int64_t>{int64_t{1} << 40}, Shape({}));
  const Tensor flags = from_vector(std::vector<uint8_t>{1, 0, 1}, Shape({3}), DType::boolean);
  {
    H5Group root = H5File::create(path).root();
    H5Group vars = root.group("layers/dense/vars");
    vars.write("0", f32);
    vars.write("1", f64);
    vars.write("2", i32);
    vars.write("3", i64);
    vars.write("4", flags);
    vars.set_attr("name", "dense");
    root.set_attr("layer_names", std::vector<std::string>{"a", "bb"});
  }
  const H5Group root = H5File::open(path).root();
  EXPECT_TRUE(root.has("layers/dense/vars/0"));
  EXPECT_FALSE(root.has("layers/conv/vars"));
  const H5Group vars = root.open_group("layers/dense/vars");
  EXPECT_EQ(vars.path(), "/layers/dense/vars");
  EXPECT_EQ(vars.children(), (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(vars.read("0").to_vector<float>(), f32.to_vector<float>());
  EXPECT_EQ(vars.read("0").shape(), f32.shape());
  EXPECT_EQ(vars.read("1").to_vector<double>(), f64.to_vector<double>());
  EXPECT_EQ(vars.read("2").to_vector<int32_t>(), i32.to_vector<int32_t>());
  EXPECT_EQ(vars.read("3").item<int64_t>(), int64_t{1} << 40);
  EXPECT_EQ(vars.read("4").dtype(), DType::boolean);
  EXPECT_EQ(vars.read("4").to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(vars.info("2").shape, Shape({2, 1}));
  EXPECT_EQ(vars.attr_string("name"), "dense");
  EXPECT_EQ(root.attr_strings("layer_names"), (std::vector<std::string>{"a", "bb"}));
  std::filesystem::remove(path);
}

TEST(H5File, BadFilesNameThemselves) {
  const std::string missing = temp_path("missing.h5");
  EXPECT_NE(error_of([&] { H5File::open(missing); }).find(missing), std::string::npos);

  const std::string text = temp_path("text.h5");
  std::ofstream(text) << "not an HDF5 file at all";
  EXPECT_NE(error_of([&] { H5File::open(text); }).find(text + " is not an HDF5 file"),
            std::string::npos);

  const std::string cut = temp_path("cut.h5");
  {
    H5Group root = H5File::create(cut).root();
    root.group("g").write("big", zeros({256, 256}));
  }
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  const std::string error = error_of([&] { H5File::open(cut).root().open_group("g").read("big"); });
  EXPECT_NE(error.find(cut), std::string::npos) << error;

  for (const auto& p : {text, cut}) std::filesystem::remove(p);
}

TEST(H5File, MissingGroupsListWhatIsThere) {
  const std::string path = temp_path("groups.h5");
  {
    H5Group root = H5File::create(path).root();
    root.group("layers/dense");
    root.group("layers/lstm");
  }
  const std::string error =
      error_of([&] { H5File::open(path).root().open_group("layers").open_group("gru"); });
  EXPECT_NE(error.find(path + ":/layers has no group 'gru' (it has: dense, lstm)"),
            std::string::npos)
      << error;
  std::filesystem::remove(path);
}

// A hard link from a group to its ancestor makes the file's tree endless: `kiln inspect` refuses
// it naming the group, where it recursed until the stack ran out.
TEST(H5File, ALinkCycleIsRefusedNotFollowedForever) {
  const std::string path = temp_path("cycle.h5");
  H5File::create(path).root().group("layers/dense/vars").write("0", ones({2, 3}));
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GE(
      H5Lcreate_hard(file, "/layers", file, "/layers/dense/vars/back", H5P_DEFAULT, H5P_DEFAULT),
      0);
  H5Fclose(file);
  EXPECT_NE(error_of([&] {
              describe_file(path, nullptr);
            }).find(path + ":/layers/dense/vars/back is a group already reached by another link"),
            std::string::npos)
      << error_of([&] { describe_file(path, nullptr); });
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kiln::saving
