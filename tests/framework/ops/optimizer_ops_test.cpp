// adam_update: the one-pass update gives the values of the same update as separate ops, bit for
// bit at every instruction set level, over tensors long enough to be split between threads and to
// end in a partial vector; bad operands get errors naming the op and their metas.
#include <gtest/gtest.h>

#include "framework/backends/cpu/cpu_isa.h"
#include "framework/ops/ops.h"
#include "framework/ops/optimizer_ops.h"
#include "framework/random/random.h"

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
  // The inputs are left as they were: eagerly the outputs are new tensors.
  EXPECT_NE(want.variable.to_vector<double>(), w.to_vector<double>());
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, AdamUpdateOp, ::testing::Values(DType::f32, DType::f64),
                         [](const auto& p) { return std::string(dtype_name(p.param)); });

void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "expected an error containing " << parts[0];
  } catch (const Error& e) {
    for (const std::string& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "'" << p << "' missing from: " << e.what();
  }
}

TEST(AdamUpdateOpErrors, NameTheOpAndTheOperands) {
  const Tensor w = zeros({2, 3});
  const Tensor alpha = full({}, 1e-3, DType::f32);
  expect_error(
      [&] {
        (void)ops::adam_update(w, zeros({3, 2}), w, w, alpha, 0.9, 0.999, 1e-7);
      },
      {"kiln::ops::adam_update", "m is float32[3, 2], the variable float32[2, 3]"});
  expect_error(
      [&] {
        (void)ops::adam_update(w, w, w, zeros({2, 3}, DType::f64), alpha, 0.9, 0.999, 1e-7);
      },
      {"kiln::ops::adam_update", "gradient is float64[2, 3]"});
  expect_error([&] { (void)ops::adam_update(w, w, w, w, zeros({2}), 0.9, 0.999, 1e-7); },
               {"kiln::ops::adam_update", "alpha must be one float32 value, got float32[2]"});
  expect_error(
      [&] {
        const Tensor ints = zeros({2}, DType::i32);
        (void)ops::adam_update(ints, ints, ints, ints, zeros({}, DType::i32), 0.9, 0.999, 1e-7);
      },
      {"kiln::ops::adam_update", "floating variable", "int32"});
  expect_error(
      [&] {
        const Tensor half = zeros({2}, DType::f16);
        (void)ops::adam_update(half, half, half, half, zeros({}, DType::f16), 0.9, 0.999, 1e-7);
      },
      {"kiln::ops::adam_update on the CPU", "float16"});
}

}  // namespace
}  // namespace kiln
