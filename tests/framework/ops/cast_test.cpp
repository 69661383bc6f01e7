// The cast op between float32 and bfloat16, which runs at the processor's instruction set level:
// at every level it rounds as convert_value does (to nearest even, NaN kept quiet), on values
// that exercise the rounding (ties, infinities, NaN, subnormals) and on enough of them to split
// across threads.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/core/convert.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

std::vector<float> rounding_cases() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v{0.0f,
                       -0.0f,
                       1.0f,
                       1.0f + 0x1p-8f,             // a tie: rounds to the even 1.0
                       1.0f + 0x1p-7f + 0x1p-8f,   // a tie: rounds up to the even neighbour
                       1.0f + 0x1p-8f + 0x1p-20f,  // just above a tie
                       std::numeric_limits<float>::max(),
                       inf,
                       -inf,
                       std::numeric_limits<float>::quiet_NaN(),
                       std::bit_cast<float>(0x7f800001u),  // a signalling NaN
                       std::numeric_limits<float>::denorm_min(),
                       -1e-40f};
  const Tensor random = testing::random_f64({100000}, -1e3, 1e3);
  for (const double x : random.to_vector<double>()) v.push_back(static_cast<float>(x));
  return v;
}

std::vector<uint16_t> bits_of(const Tensor& t) {
  std::vector<uint16_t> bits;
  for (const bfloat16 b : t.to_vector<bfloat16>()) bits.push_back(b.bits);
  return bits;
}

TEST(Cast, Float32AndBfloat16AtEveryLevelRoundAsConvertValue) {
  const std::vector<float> values = rounding_cases();
  std::vector<uint16_t> want;
  std::vector<uint32_t> want_back;
  for (const float x : values) {
    want.push_back(convert_value<bfloat16>(x).bits);
    want_back.push_back(std::bit_cast<uint32_t>(convert_value<float>(convert_value<bfloat16>(x))));
  }
  const Tensor x = from_vector(values, {static_cast<int64_t>(values.size())});
  const cpu::CpuIsa saved = cpu::cpu_isa();
  for (const cpu::CpuIsa isa : {cpu::CpuIsa::sse2, cpu::CpuIsa::avx2, cpu::CpuIsa::avx512}) {
    if (isa > cpu::detected_cpu_isa()) break;
    SCOPED_TRACE(cpu::cpu_isa_name(isa));
    cpu::set_cpu_isa(isa);
    const Tensor narrow = ops::cast(x, DType::bf16);
    EXPECT_EQ(bits_of(narrow), want);
    std::vector<uint32_t> back;
    for (const float f : ops::cast(narrow, DType::f32).to_vector<float>())
      back.push_back(std::bit_cast<uint32_t>(f));
    EXPECT_EQ(back, want_back);
  }
  cpu::set_cpu_isa(saved);
}

}  // namespace
}  // namespace kiln
