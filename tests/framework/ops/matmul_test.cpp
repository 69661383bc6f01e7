// matmul: the oneDNN float32 path against the reference kernel, and float64 gradients.
#include <gtest/gtest.h>

#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

struct MatmulCase {
  Shape a, b;
  bool ta, tb;
};

const std::vector<MatmulCase> kCases = {
    {{3, 4}, {4, 5}, false, false},
    {{4, 3}, {4, 5}, true, false},
    {{3, 4}, {5, 4}, false, true},
    {{4, 3}, {5, 4}, true, true},
    {{2, 3, 4}, {2, 4, 5}, false, false},
    {{2, 3, 4}, {4, 5}, false, false},
    {{3, 4}, {2, 4, 5}, false, false},
    {{2, 1, 3, 4}, {3, 4, 5}, false, false},
    {{2, 4, 3}, {2, 5, 4}, true, true},
    {{1, 64, 33}, {33, 17}, false, false},
    // Folded batches of many rows take the matmul primitive instead of sgemm.
    {{3, 3000, 9}, {9, 7}, false, false},
    {{3, 3000, 9}, {7, 9}, false, true},
    // So do products with a transposed b of at least 2^21 multiply-adds.
    {{256, 16}, {1024, 16}, false, true},
    {{16, 256}, {1024, 16}, true, true},
};

TEST(Matmul, OneDnnMatchesReference) {
  for (const auto& c : kCases) {
    const Tensor a = testing::random_f64(c.a, -1, 1, 1);
    const Tensor b = testing::random_f64(c.b, -1, 1, 2);
    const Tensor fast = ops::matmul(ops::cast(a, DType::f32), ops::cast(b, DType::f32), c.ta, c.tb);
    const Tensor ref = ops::matmul(a, b, c.ta, c.tb);  // float64 takes the reference kernel
    ASSERT_EQ(fast.shape(), ref.shape()) << c.a << " x " << c.b;
    const auto f = fast.to_vector<double>(), r = ref.to_vector<double>();
    for (size_t i = 0; i < f.size(); ++i) ASSERT_NEAR(f[i], r[i], 1e-5) << c.a << " x " << c.b;
  }
}

TEST(Matmul, ReferenceAgreesWithHandComputation) {
  const Tensor a = tensor({1, 2, 3, 4}, {2, 2});
  const Tensor b = tensor({5, 6, 7, 8}, {2, 2});
  Tensor out = Tensor::empty({2, 2});
  cpu::reference::matmul(a, b, out, false, false);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(ops::matmul(a, b).to_vector<float>(), (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(ops::matmul(a, b, true, false).to_vector<float>(),
            (std::vector<float>{26, 30, 38, 44}));
}

TEST(Matmul, AnEmptyInnerDimensionGivesZeros) {
  // An empty batch's weight gradient: x^T [3, 0] times dy [0, 2].
  for (const DType dtype : {DType::f32, DType::f64, DType::bf16}) {
    const Tensor x = Tensor::empty({0, 3}, dtype);
    const Tensor dy = Tensor::empty({0, 2}, dtype);
    const Tensor g = ops::matmul(x, dy, true, false);
    EXPECT_EQ(g.shape(), Shape({3, 2}));
    EXPECT_EQ(ops::cast(g, DType::f32).to_vector<float>(), std::vector<float>(6, 0.0f))
        << dtype_name(dtype);
  }
}

// bfloat16 runs on oneDNN where the processor has it and on float32 copies elsewhere (AVX2-only
// machines, CI's --avx2 run); both round an exact sum of quarters once, to the float32 product
// rounded to bfloat16, batched and transposed alike.
TEST(Matmul, BFloat16MatchesFloat32OnEveryProcessor) {
  for (const auto& c : kCases) {
    const auto quarters = [](const Shape& shape, int64_t offset) {
      std::vector<float> v(static_cast<size_t>(shape.numel()));
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>((static_cast<int64_t>(i) + offset) % 7 - 3) * 0.25f;
      return from_vector(v, shape);
    };
    const Tensor a = quarters(c.a, 0), b = quarters(c.b, 2);
    const Tensor want =
        ops::cast(ops::cast(ops::matmul(a, b, c.ta, c.tb), DType::bf16), DType::f32);
    const Tensor got =
        ops::matmul(ops::cast(a, DType::bf16), ops::cast(b, DType::bf16), c.ta, c.tb);
    ASSERT_EQ(got.dtype(), DType::bf16);
    EXPECT_EQ(ops::cast(got, DType::f32).to_vector<float>(), want.to_vector<float>())
        << c.a << " x " << c.b;
  }
}

TEST(Matmul, Gradients) {
  for (const auto& c : kCases) {
    if (c.a.numel() > 200) continue;  // finite differences are quadratic in size
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return ops::matmul(in[0], in[1], c.ta, c.tb); },
        {testing::random_f64(c.a, -1, 1, 3), testing::random_f64(c.b, -1, 1, 4)});
  }
}

TEST(Matmul, ShapeErrorsNameTheOperands) {
  try {
    (void)ops::matmul(zeros({2, 3}), zeros({4, 5}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "kiln::ops::matmul: inner dimensions differ: 3 vs 4 (inputs: float32[2, 3], "
                 "float32[4, 5]; transpose_a=false, transpose_b=false)");
  }
}

}  // namespace
}  // namespace kiln
