#include <gtest/gtest.h>

#include <cstdint>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

TEST(Tensor, CreatesAndReadsBack) {
  const Tensor t = tensor({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(full({3}, 2.5, DType::f64).to_vector<double>(), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(arange(0, 1, 0.25).to_vector<float>(), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange(4).dtype(), DType::i64);
  EXPECT_EQ(scalar(7, DType::i32).item<int32_t>(), 7);
}

TEST(Tensor, StorageIs64ByteAligned) {
  for (int64_t n : {1, 3, 17, 1000}) {
    const Tensor t = Tensor::empty({n}, DType::u8);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  }
}

TEST(Tensor, ReshapeAndLeadingSlicesAreViews) {
  const Tensor t = arange(0, 12, 1, DType::f32);
  const Tensor r = ops::reshape(t, {3, 4});
  EXPECT_EQ(r.raw_data(), t.raw_data());
  const Tensor rows = ops::slice(r, {1, 0}, {2, -1});
  EXPECT_EQ(rows.raw_data(), static_cast<float*>(t.raw_data()) + 4);
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11}));
  // A column slice is not contiguous and is copied.
  const Tensor col = ops::slice(r, {0, 1}, {3, 1});
  EXPECT_EQ(col.to_vector<float>(), (std::vector<float>{1, 5, 9}));
}

TEST(Tensor, ItemNeedsOneElement) {
  EXPECT_THROW(tensor({1, 2}).item<float>(), Error);
  EXPECT_EQ(tensor({3}).item<double>(), 3.0);
}

TEST(Tensor, DataChecksDtype) {
  const Tensor t = zeros({2}, DType::f64);
  EXPECT_THROW(t.data<float>(), Error);
  EXPECT_NO_THROW(t.data<double>());
}

TEST(Tensor, PrintsLikeNumPy) {
  EXPECT_EQ(tensor({1, 2, 3, 4}, {2, 2}).to_string(),
            "Tensor([[1, 2],\n [3, 4]], shape=[2, 2], dtype=float32)");
  const std::string long_one = arange(0, 2000, 1, DType::i32).to_string();
  EXPECT_NE(long_one.find("[0, 1, 2, ..., 1997, 1998, 1999]"), std::string::npos) << long_one;
}

TEST(Tensor, CloneCopiesAndToCpuIsIdentity) {
  const Tensor t = tensor({1, 2});
  const Tensor c = t.clone();
  EXPECT_NE(c.raw_data(), t.raw_data());
  EXPECT_EQ(c.to_vector<float>(), t.to_vector<float>());
  EXPECT_EQ(t.to(Device::cpu()).raw_data(), t.raw_data());
}

TEST(Tensor, CudaWithoutDeviceIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is visible";
  try {
    (void)tensor({1}).to(Device::cuda(0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
