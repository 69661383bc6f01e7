// The CUDA backend against the CPU: every op runs on both over the same data. Tests that need a
// GPU skip where none is visible; scripts/gpu-test runs them on a GPU machine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

const Device kGpu = Device::cuda(0);

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available())
      GTEST_SKIP() << "no CUDA device visible: these tests need an NVIDIA GPU and driver "
                      "(scripts/gpu-test runs them on a GPU machine)";
  }
};

// Deterministic values, multiples of 1/4 (exact in every floating dtype, and some compare
// equal): signed in [-3, 3), or in [1, 3.5] for positive domains, integer division and unsigned
// dtypes. Small magnitudes keep integer pow within u8.
Tensor values(const Shape& shape, DType dtype, bool positive) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = positive ? 1.0 + 0.5 * static_cast<double>(i % 6)
                    : -3.0 + 0.25 * static_cast<double>((i * 7) % 24);
  if (dtype == DType::boolean)
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i * 5) % 3 == 0;
  return from_vector(v, shape, dtype);
}

// Tolerances cover a last-bit difference between the GPU's and glibc's math functions, which
// rounding to 16 bits can turn into one 16-bit ulp.
double tolerance(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return 1e-12;
    case DType::f32:
      return 1e-5;
    case DType::f16:
      return 2e-3;
    case DType::bf16:
      return 2e-2;
    default:
      return 0;
  }
}

void expect_matches(const Tensor& gpu, const Tensor& cpu) {
  ASSERT_TRUE(gpu.device().is_cuda());
  ASSERT_EQ(gpu.dtype(), cpu.dtype());
  ASSERT_EQ(gpu.shape(), cpu.shape());
  const std::vector<double> got = gpu.to_vector<double>();
  const std::vector<double> want = cpu.to_vector<double>();
  const double tol = tolerance(cpu.dtype());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), tol * std::max(1.0, std::abs(want[i])))
        << "element " << i << ": cuda " << got[i] << ", cpu " << want[i];
}

const std::vector<DType> kFloating{DType::f32, DType::f64, DType::f16, DType::bf16};
const std::vector<DType> kNumeric{DType::f32, DType::f64, DType::f16, DType::bf16,
                                  DType::i32, DType::i64, DType::u8};
const std::vector<DType> kAll{DType::f32, DType::f64, DType::f16, DType::bf16,
                              DType::i32, DType::i64, DType::u8,  DType::boolean};

TEST(CudaDevice, InvisibleDeviceIsAClearError) {
  // cuda:0 where no GPU is visible; past the last device where one is.
  const Device missing = Device::cuda(cuda_available() ? 4096 : 0);
  try {
    (void)zeros({2}, DType::f32, missing);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing.to_string()));
    EXPECT_THAT(e.what(), HasSubstr("CUDA device(s) are visible"));
  }
}

TEST_F(Cuda, RoundTripsThroughTheDevice) {
  for (DType dtype : kAll) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor host = values({3, 5}, dtype, dtype == DType::u8);
    const Tensor device = host.to(kGpu);
    EXPECT_EQ(device.device(), kGpu);
    expect_matches(device, host);
    expect_matches(device.clone(), host);
    // A view starts at an offset into the same device storage.
    expect_matches(device.view({2, 5}, 5), host.view({2, 5}, 5));
  }
}

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> fn;
  const std::vector<DType>* dtypes;
  bool positive;  // domain
};

TEST_F(Cuda, UnaryOpsMatchCpu) {
  const std::vector<UnaryCase> cases{
      {"neg", [](const Tensor& x) { return ops::neg(x); }, &kNumeric, false},
      {"abs", [](const Tensor& x) { return ops::abs(x); }, &kNumeric, false},
      {"sign", [](const Tensor& x) { return ops::sign(x); }, &kNumeric, false},
      {"exp", [](const Tensor& x) { return ops::exp(x); }, &kFloating, false},
      {"log", [](const Tensor& x) { return ops::log(x); }, &kFloating, true},
      {"log1p", [](const Tensor& x) { return ops::log1p(x); }, &kFloating, true},
      {"sqrt", [](const Tensor& x) { return ops::sqrt(x); }, &kFloating, true},
      {"rsqrt", [](const Tensor& x) { return ops::rsqrt(x); }, &kFloating, true},
      {"square", [](const Tensor& x) { return ops::square(x); }, &kNumeric, false},
      {"tanh", [](const Tensor& x) { return ops::tanh(x); }, &kFloating, false},
      {"sigmoid", [](const Tensor& x) { return ops::sigmoid(x); }, &kFloating, false},
      {"relu", [](const Tensor& x) { return ops::relu(x); }, &kNumeric, false},
      {"leaky_relu", [](const Tensor& x) { return ops::leaky_relu(x, 0.2); }, &kFloating, false},
      {"elu", [](const Tensor& x) { return ops::elu(x, 0.7); }, &kFloating, false},
      {"gelu", [](const Tensor& x) { return ops::gelu(x, false); }, &kFloating, false},
      {"gelu_tanh", [](const Tensor& x) { return ops::gelu(x, true); }, &kFloating, false},
      {"softplus", [](const Tensor& x) { return ops::softplus(x); }, &kFloating, false},
      {"sin", [](const Tensor& x) { return ops::sin(x); }, &kFloating, false},
      {"cos", [](const Tensor& x) { return ops::cos(x); }, &kFloating, false},
      {"erf", [](const Tensor& x) { return ops::erf(x); }, &kFloating, false},
  };
  for (const UnaryCase& c : cases) {
    for (DType dtype : *c.dtypes) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dtype)));
      const Tensor x = values({4, 33}, dtype, c.positive || dtype == DType::u8);
      expect_matches(c.fn(x.to(kGpu)), c.fn(x));
    }
  }
  const Tensor b = values({7}, DType::boolean, false);
  expect_matches(ops::logical_not(b.to(kGpu)), ops::logical_not(b));
}

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  const std::vector<DType>* dtypes;
};

// Same shapes, a row, a scalar, and both operands broadcasting.
const std::vector<std::pair<Shape, Shape>> kBroadcastShapes{
    {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}}, {{}, {2, 3}}, {{2, 1, 4}, {3, 1}}, {{5, 1}, {1, 6}}};

TEST_F(Cuda, BinaryOpsMatchCpu) {
  const std::vector<DType> kBool{DType::boolean};
  const std::vector<BinaryCase> cases{
      {"add", [](const Tensor& a, const Tensor& b) { return ops::add(a, b); }, &kNumeric},
      {"sub", [](const Tensor& a, const Tensor& b) { return ops::sub(a, b); }, &kNumeric},
      {"mul", [](const Tensor& a, const Tensor& b) { return ops::mul(a, b); }, &kNumeric},
      {"div", [](const Tensor& a, const Tensor& b) { return ops::div(a, b); }, &kNumeric},
      {"pow", [](const Tensor& a, const Tensor& b) { return ops::pow(a, b); }, &kNumeric},
      {"maximum", [](const Tensor& a, const Tensor& b) { return ops::maximum(a, b); }, &kNumeric},
      {"minimum", [](const Tensor& a, const Tensor& b) { return ops::minimum(a, b); }, &kNumeric},
      {"equal", [](const Tensor& a, const Tensor& b) { return ops::equal(a, b); }, &kAll},
      {"not_equal", [](const Tensor& a, const Tensor& b) { return ops::not_equal(a, b); }, &kAll},
      {"less", [](const Tensor& a, const Tensor& b) { return ops::less(a, b); }, &kAll},
      {"less_equal", [](const Tensor& a, const Tensor& b) { return ops::less_equal(a, b); }, &kAll},
      {"greater", [](const Tensor& a, const Tensor& b) { return ops::greater(a, b); }, &kAll},
      {"greater_equal", [](const Tensor& a, const Tensor& b) { return ops::greater_equal(a, b); },
       &kAll},
      {"logical_and", [](const Tensor& a, const Tensor& b) { return ops::logical_and(a, b); },
       &kBool},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return ops::logical_or(a, b); },
       &kBool},
  };
  for (const BinaryCase& c : cases) {
    for (DType dtype : *c.dtypes) {
      for (const auto& [sa, sb] : kBroadcastShapes) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dtype)) + " " +
                     sa.to_string() + " " + sb.to_string());
        // Positive operands keep div and pow finite (and integer division away from zero).
        const Tensor a = values(sa, dtype, true);
        const Tensor b = values(sb, dtype, true);
        expect_matches(c.fn(a.to(kGpu), b.to(kGpu)), c.fn(a, b));
      }
    }
  }
}

TEST_F(Cuda, WhereMatchesCpu) {
  for (DType dtype : kAll) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor cond = values({2, 1, 4}, DType::boolean, false);
    const Tensor a = values({3, 1}, dtype, true);
    const Tensor b = values({}, dtype, false);
    expect_matches(ops::where(cond.to(kGpu), a.to(kGpu), b.to(kGpu)), ops::where(cond, a, b));
  }
}

TEST_F(Cuda, CastMatchesCpu) {
  // Non-negative values within every dtype's range: other casts are undefined in C++.
  const std::vector<double> v{0, 1, 2.5, 3.75, 17, 100, 0.125, 64};
  for (DType from : kAll) {
    for (DType to : kAll) {
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      const Tensor x = from_vector(v, {2, 4}, from);
      expect_matches(ops::cast(x.to(kGpu), to), ops::cast(x, to));
    }
  }
}

TEST_F(Cuda, CoversTensorsLargerThanOneGrid) {
  // More elements than the launch's blocks times threads, so the grid-stride loop wraps.
  const int64_t n = (int64_t{1} << 24) + 1000;
  const std::vector<float> out = ops::add(ones({n}, DType::f32, kGpu), 1.0).to_vector<float>();
  EXPECT_EQ(std::count(out.begin(), out.end(), 2.0f), n);
}

TEST_F(Cuda, ReduceSumMatchesCpu) {
  const std::vector<std::vector<int64_t>> axes_cases{{}, {0}, {1}, {2}, {0, 2}, {1, 2}};
  for (DType dtype : kNumeric) {
    for (const std::vector<int64_t>& axes : axes_cases) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " axes " + Shape(axes).to_string() +
                     (keepdims ? " keepdims" : ""));
        const Tensor x = values({3, 4, 5}, dtype, dtype == DType::u8);
        expect_matches(ops::sum(x.to(kGpu), axes, keepdims), ops::sum(x, axes, keepdims));
      }
    }
  }
  // Rows longer than a block's threads.
  const Tensor rows = values({3, 1000}, DType::f32, false);
  expect_matches(ops::sum(rows.to(kGpu), {1}), ops::sum(rows, {1}));
}

TEST_F(Cuda, MatmulMatchesCpu) {
  struct Case {
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<Case> cases{
      {{17, 33}, {33, 9}, false, false},       {{33, 17}, {33, 9}, true, false},
      {{17, 33}, {9, 33}, false, true},        {{33, 17}, {9, 33}, true, true},
      {{3, 17, 33}, {3, 33, 9}, false, false}, {{3, 33, 17}, {33, 9}, true, false},
      {{17, 33}, {2, 3, 9, 33}, false, true},  {{1, 17, 33}, {4, 33, 9}, false, false},
  };
  for (DType dtype : kFloating) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + c.a.to_string() + (c.ta ? "^T" : "") +
                   " x " + c.b.to_string() + (c.tb ? "^T" : ""));
      const Tensor a = values(c.a, dtype, false);
      const Tensor b = values(c.b, dtype, false);
      // Products and sums of multiples of 1/4 are exact in f32, so the order of summation
      // does not matter and the results match to the final rounding.
      expect_matches(ops::matmul(a.to(kGpu), b.to(kGpu), c.ta, c.tb),
                     ops::matmul(a, b, c.ta, c.tb));
    }
  }
}

TEST_F(Cuda, AllocatorReusesFreedBlocks) {
  Allocator& alloc = backend_for(kGpu).allocator(0);
  void* first = alloc.allocate(1000);
  alloc.deallocate(first, 1000);
  // 1000 and 1024 bytes share a size class: the freed block comes back.
  void* again = alloc.allocate(1024);
  EXPECT_EQ(again, first);
  void* other = alloc.allocate(1000);
  EXPECT_NE(other, again);
  alloc.deallocate(again, 1024);
  alloc.deallocate(other, 1000);

  // The same through tensors: a step that frees and reallocates reuses the memory.
  const void* data = Tensor::empty({256, 256}, DType::f32, kGpu).raw_data();
  EXPECT_EQ(Tensor::empty({256, 256}, DType::f32, kGpu).raw_data(), data);
}

TEST_F(Cuda, AllocationFailureNamesDeviceAndSize) {
  const size_t bytes = size_t{1} << 50;  // a petabyte
  try {
    (void)backend_for(kGpu).allocator(0).allocate(bytes);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cuda:0"));
    EXPECT_THAT(e.what(), HasSubstr(std::to_string(bytes)));
  }
}

}  // namespace
}  // namespace kiln
