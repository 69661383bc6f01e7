// Fashion-MNIST: the loader's error when the package is missing, and the data when it is there.
#include "kiln/datasets/fashion_mnist.h"

#include <gmock/gmock.h>

#include <filesystem>

#include "tests/datasets/dataset_test_util.h"

namespace kiln::datasets::testing {
namespace {

using ::testing::HasSubstr;

TEST(FashionMnist, MissingDirectoryNamesThePathAndThePackage) {
  const std::string msg = error_of([] { (void)load_fashion_mnist("/nonexistent/fmnist"); });
  EXPECT_THAT(msg, HasSubstr("/nonexistent/fmnist"));
  EXPECT_THAT(msg, HasSubstr("dataset-fashion-mnist"));
  EXPECT_THAT(error_of([] { (void)fashion_mnist_dataset(Split::test, "/nonexistent/fmnist"); }),
              HasSubstr("dataset-fashion-mnist"));
}

TEST(FashionMnist, ADirectoryWithoutTheFilesNamesTheFileAndThePackage) {
  const TempDir dir;
  EXPECT_THAT(error_of([&] { (void)load_fashion_mnist(dir.path().string()); }),
              HasSubstr("Fashion-MNIST at " + dir.path().string() +
                        " has no train-images-idx3-ubyte.gz: install the Debian package "
                        "dataset-fashion-mnist"));
}

TEST(FashionMnist, TestSplitAsADataset) {
  if (!std::filesystem::is_directory(default_fashion_mnist_dir()))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const Dataset ds = fashion_mnist_dataset(Split::test);
  EXPECT_EQ(ds.cardinality(), 10000);
  const Element first = *ds.iterator().next();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].shape(), Shape({28, 28}));
  EXPECT_EQ(first[0].dtype(), DType::f32);
  EXPECT_EQ(first[1].shape(), Shape({}));
  EXPECT_EQ(first[1].dtype(), DType::i64);
  const int64_t label = first[1].item<int64_t>();
  EXPECT_TRUE(label >= 0 && label < 10) << label;
}

}  // namespace
}  // namespace kiln::datasets::testing
