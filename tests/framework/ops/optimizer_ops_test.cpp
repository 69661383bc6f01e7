// adam_update: the one-pass update gives the values of the same update as separate ops, bit for
// bit at every instruction set level, over tensors long enough to be split between threads and to
// end in a partial vector; bad operands get errors naming the op and their metas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "kiln/framework/random/random.h"
#include "tests/test_support/expect_error.h"

namespace kiln {
namespace {

constexpr double kBeta1 = 0.9;
constexpr double kBeta2 = 0.999;
constexpr double kEpsilon = 1e-7;

// Keras's Adam step as separate ops, in the order the op documents.
ops::AdamUpdate as_separate_ops(const Tensor& w, const Tensor& m, const Tensor& v, const Tensor& g,
                                const Tensor& alpha) {
  const Tensor m_new = m + (g - m) * (1 - kBeta1);
  const Tensor v_new = v + (ops::square(g) - v) * (1 - kBeta2);
  return {w - m_new * alpha / (ops::sqrt(v_new) + kEpsilon), m_new, v_new};
}

void expect_bitwise_equal(const Tensor& got, const Tensor& want, const char* what) {
  ASSERT_EQ(got.meta(), want.meta()) << what;
  EXPECT_EQ(got.to_vector<double>(), want.to_vector<double>()) << what;
}

class AdamUpdateOp : public ::testing::TestWithParam<DType> {};

TEST_P(AdamUpdateOp, EqualsTheSeparateOpsBitForBit) {
  const DType dtype = GetParam();
  random::Generator gen(7);
  const Shape shape{100003};  // over the parallel grain; 100003 % 16 == 3
  const Tensor w = random::uniform(shape, -1, 1, dtype, gen);
  const Tensor m = random::uniform(shape, -1e-2, 1e-2, dtype, gen);
  const Tensor v = random::uniform(shape, 0, 1e-4, dtype, gen);
  const Tensor g = random::uniform(shape, -1e-1, 1e-1, dtype, gen);
  const Tensor alpha = full({}, 3e-4, dtype);
  const ops::AdamUpdate want = as_separate_ops(w, m, v, g, alpha);
  const std::vector<double> w_before = w.to_vector<double>(), m_before = m.to_vector<double>(),
                            v_before = v.to_vector<double>();
  // At every instruction set level the processor has.
  const cpu::CpuIsa saved = cpu::cpu_isa();
  for (cpu::CpuIsa isa : {cpu::CpuIsa::sse2, cpu::CpuIsa::avx2, cpu::CpuIsa::avx512}) {
    if (isa > cpu::detected_cpu_isa()) break;
    SCOPED_TRACE(cpu::cpu_isa_name(isa));
    cpu::set_cpu_isa(isa);
    const ops::AdamUpdate got = ops::adam_update(w, m, v, g, alpha, kBeta1, kBeta2, kEpsilon);
    expect_bitwise_equal(got.variable, want.variable, "variable");
    expect_bitwise_equal(got.m, want.m, "m");
    expect_bitwise_equal(got.v, want.v, "v");
  }
  cpu::set_cpu_isa(saved);
  // Eagerly the outputs are new tensors: the inputs are left as they were.
  EXPECT_EQ(w.to_vector<double>(), w_before);
  EXPECT_EQ(m.to_vector<double>(), m_before);
  EXPECT_EQ(v.to_vector<double>(), v_before);
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, AdamUpdateOp, ::testing::Values(DType::f32, DType::f64),
                         [](const auto& p) { return std::string(dtype_name(p.param)); });

TEST(AdamUpdateOpErrors, NameTheOpAndTheOperands) {
  using ::testing::AllOf;
  using testing::error_of;
  using ::testing::HasSubstr;
  const Tensor w = zeros({2, 3});
  const Tensor alpha = full({}, 1e-3, DType::f32);
  const auto update = [](const Tensor& variable, const Tensor& m, const Tensor& gradient,
                         const Tensor& rate) {
    (void)ops::adam_update(variable, m, variable, gradient, rate, 0.9, 0.999, 1e-7);
  };
  EXPECT_THAT(error_of([&] {
                update(w, zeros({3, 2}), w, alpha);
              }),
              AllOf(HasSubstr("kiln::ops::adam_update"),
                    HasSubstr("m is float32[3, 2], the variable float32[2, 3]")));
  EXPECT_THAT(error_of([&] {
                update(w, w, zeros({2, 3}, DType::f64), alpha);
              }),
              AllOf(HasSubstr("kiln::ops::adam_update"), HasSubstr("gradient is float64[2, 3]")));
  EXPECT_THAT(error_of([&] { update(w, w, w, zeros({2})); }),
              HasSubstr("alpha must be one float32 value, got float32[2]"));
  const Tensor ints = zeros({2}, DType::i32);
  EXPECT_THAT(error_of([&] { update(ints, ints, ints, zeros({}, DType::i32)); }),
              AllOf(HasSubstr("floating variable"), HasSubstr("int32")));
  const Tensor half = zeros({2}, DType::f16);
  EXPECT_THAT(error_of([&] { update(half, half, half, zeros({}, DType::f16)); }),
              AllOf(HasSubstr("kiln::ops::adam_update on the CPU"), HasSubstr("float16")));
}

}  // namespace
}  // namespace kiln
