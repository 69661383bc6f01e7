// Reductions over axes: values, keepdims, non-adjacent axes, arg reductions and gradients.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

const Tensor kX = tensor({1, 5, 3, 4, 2, 6}, {2, 3});

TEST(Reductions, SumMaxMinProdMean) {
  EXPECT_EQ(ops::sum(kX).item<float>(), 21);
  EXPECT_EQ(ops::sum(kX, {0}).to_vector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(ops::sum(kX, {1}, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(ops::max(kX, {1}).to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_EQ(ops::min(kX, {-1}).to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(ops::prod(kX, {0}).to_vector<float>(), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(ops::mean(kX, {1}).to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_NEAR(ops::variance(kX).item<double>(), 35.0 / 12.0, 1e-6);
}

TEST(Reductions, NonAdjacentAxesAndLargeInputs) {
  const Tensor x = testing::random_f64({6, 7, 8, 9});
  const auto v = x.to_vector<double>();
  const auto s = ops::sum(x, {0, 2}).to_vector<double>();
  ASSERT_EQ(s.size(), 63u);
  for (int j = 0; j < 7; ++j)
    for (int l = 0; l < 9; ++l) {
      double want = 0;
      for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 8; ++k) want += v[static_cast<size_t>(((i * 7 + j) * 8 + k) * 9 + l)];
      ASSERT_NEAR(s[static_cast<size_t>(j * 9 + l)], want, 1e-12);
    }
  // Long rows and long columns cross the parallel thresholds.
  const Tensor big = ones({3, 100000});
  EXPECT_EQ(ops::sum(big, {1}).to_vector<float>(), (std::vector<float>{100000, 100000, 100000}));
  EXPECT_EQ(ops::sum(ones({100000, 3}), {0}).to_vector<float>(),
            (std::vector<float>{100000, 100000, 100000}));
}

// Column reductions (leading axes) run at the processor's instruction set level; each column is
// still reduced in row order, so every level gives the baseline's bits.
TEST(Reductions, ColumnReductionsGiveTheSameBitsAtEveryLevel) {
  const Tensor x = ops::cast(testing::random_f64({37, 41, 300}, -1, 1, 7), DType::f32);
  const auto reduce = [&] {
    return std::vector<std::vector<float>>{ops::sum(x, {0, 1}).to_vector<float>(),
                                           ops::max(x, {0}).to_vector<float>(),
                                           ops::sum(x, {1}).to_vector<float>()};
  };
  const cpu::CpuIsa saved = cpu::cpu_isa();
  cpu::set_cpu_isa(cpu::CpuIsa::sse2);
  const auto baseline = reduce();
  for (cpu::CpuIsa isa : {cpu::CpuIsa::avx2, cpu::CpuIsa::avx512}) {
    if (isa > cpu::detected_cpu_isa()) break;
    cpu::set_cpu_isa(isa);
    EXPECT_EQ(reduce(), baseline) << cpu::cpu_isa_name(isa);
  }
  cpu::set_cpu_isa(saved);
}

TEST(Reductions, ArgMaxArgMin) {
  EXPECT_EQ(ops::argmax(kX, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ops::argmin(kX, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(ops::argmax(kX, 1, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(ops::argmax(kX).dtype(), DType::i64);
  // Ties pick the first index.
  EXPECT_EQ(ops::argmax(tensor({2, 7, 7})).item<int64_t>(), 1);
}

TEST(Reductions, LogSumExpIsStable) {
  const Tensor x = tensor({1000, 1000});
  EXPECT_NEAR(ops::logsumexp(x).item<double>(), 1000 + std::log(2.0), 1e-3);
  EXPECT_EQ(ops::logsumexp(kX, {1}, true).shape(), (Shape{2, 1}));
}

TEST(Reductions, Gradients) {
  const Tensor x = testing::random_f64({3, 4, 5}, 0.5, 2);
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}, {-1}}) {
    for (bool keep : {false, true}) {
      auto check = [&](auto fn) {
        testing::expect_gradients_match([&](const std::vector<Tensor>& in) { return fn(in[0]); },
                                        {x});
      };
      check([&](const Tensor& t) { return ops::sum(t, axes, keep); });
      check([&](const Tensor& t) { return ops::mean(t, axes, keep); });
      check([&](const Tensor& t) { return ops::prod(t, axes, keep); });
      check([&](const Tensor& t) { return ops::max(t, axes, keep); });
      check([&](const Tensor& t) { return ops::min(t, axes, keep); });
      check([&](const Tensor& t) { return ops::logsumexp(t, axes, keep); });
      check([&](const Tensor& t) { return ops::variance(t, axes, keep); });
    }
  }
}

TEST(Reductions, MaxGradientSplitsTies) {
  const Tensor x = from_vector(std::vector<double>{3, 3, 1}, {3});
  const auto g = grad([](const std::vector<Tensor>& in) { return ops::max(in[0]); }, {x});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{0.5, 0.5, 0}));
}

}  // namespace
}  // namespace kiln
