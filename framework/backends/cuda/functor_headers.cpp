#include "kiln/framework/backends/cuda/functor_headers.h"

#include <string>

namespace kiln::cuda {
namespace {

// What the functors take from <cmath>: NVRTC declares CUDA's math functions, with their float
// and double overloads, in the global namespace. A functor using another one fails to compile in
// fused_source_test, naming it; it then belongs here.
constexpr std::string_view kCmath = R"(#pragma once
namespace std {
using ::cos;
using ::erf;
using ::exp;
using ::log;
using ::log1p;
using ::pow;
using ::sin;
using ::sqrt;
using ::tanh;
}  // namespace std
)";

// What the functors take from <type_traits> (Pow's integer branch, never taken in a fused
// program, which computes in float or double, but parsed all the same).
constexpr std::string_view kTypeTraits = R"(#pragma once
namespace std {
template <typename T>
inline constexpr bool is_floating_point_v = false;
template <>
inline constexpr bool is_floating_point_v<float> = true;
template <>
inline constexpr bool is_floating_point_v<double> = true;
template <typename T>
inline constexpr bool is_signed_v = T(-1) < T(0);
}  // namespace std
)";

// The functors take only KILN_HD from half.h; its 16-bit float types need <bit> and <cstring>.
constexpr std::string_view kHalf = R"(#pragma once
#define KILN_HD __host__ __device__
)";

}  // namespace

std::vector<NvrtcHeader> fused_kernel_headers() {
  return {
      {"kiln/framework/ops/elementwise_functors.h", std::string(elementwise_functors_text())},
      {"kiln/framework/core/half.h", std::string(kHalf)},
      {"cmath", std::string(kCmath)},
      {"type_traits", std::string(kTypeTraits)},
  };
}

}  // namespace kiln::cuda
