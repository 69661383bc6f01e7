#pragma once
// The math of every elementwise op, once, for every backend: CPU loops and CUDA kernels call
// the same functors. They take and return the compute type (float for 16-bit floats).
#include <cmath>
#include <type_traits>

#include "kiln/framework/core/half.h"  // KILN_HD

namespace kiln::fn {

// 1/sqrt(2*pi) and sqrt(2/pi), for gelu.
inline constexpr double kInvSqrt2Pi = 0.3989422804014327;
inline constexpr double kSqrt2OverPi = 0.7978845608028654;
inline constexpr double kInvSqrt2 = 0.7071067811865476;

template <typename T>
KILN_HD inline T sigmoid_of(T x) {
  // Branches keep exp's argument non-positive so neither side overflows.
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

struct Neg {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return -x;
  }
};
struct Abs {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x < T(0) ? -x : x;
  }
};
struct Sign {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Exp {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::exp(x);
  }
};
struct Log {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::log(x);
  }
};
struct Log1p {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::log1p(x);
  }
};
struct Sqrt {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct Rsqrt {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return T(1) / std::sqrt(x);
  }
};
struct Square {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x * x;
  }
};
struct Tanh {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::tanh(x);
  }
};
struct Sigmoid {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return sigmoid_of(x);
  }
};
struct Relu {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x > T(0) ? x : T(0);
  }
};
struct LeakyRelu {
  double alpha;
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x > T(0) ? x : static_cast<T>(alpha) * x;
  }
};
struct Elu {
  double alpha;
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x > T(0) ? x : static_cast<T>(alpha) * (std::exp(x) - T(1));
  }
};
struct Gelu {
  bool approximate;
  template <typename T>
  KILN_HD T operator()(T x) const {
    if (approximate) {
      const T inner = static_cast<T>(kSqrt2OverPi) * (x + T(0.044715) * x * x * x);
      return T(0.5) * x * (T(1) + std::tanh(inner));
    }
    return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(kInvSqrt2)));
  }
};
struct Softplus {
  template <typename T>
  KILN_HD T operator()(T x) const {
    // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): exact for large |x|.
    const T ax = x < T(0) ? -x : x;
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-ax));
  }
};
struct Sin {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::sin(x);
  }
};
struct Cos {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::cos(x);
  }
};
struct Erf {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return std::erf(x);
  }
};
struct Relu6 {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x > T(0) ? (x < T(6) ? x : T(6)) : T(0);
  }
};
// Keras's hard_sigmoid: relu6(x + 3) / 6.
struct HardSigmoid {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return Relu6{}(x + T(3)) / T(6);
  }
};
// Keras's hard_silu (hard_swish): x * hard_sigmoid(x).
struct HardSilu {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x * HardSigmoid{}(x);
  }
};
// x * tanh(softplus(x)).
struct Mish {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x * std::tanh(Softplus{}(x));
  }
};
// x / (1 + |x|).
struct Softsign {
  template <typename T>
  KILN_HD T operator()(T x) const {
    return x / (T(1) + (x < T(0) ? -x : x));
  }
};

struct Add {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return a + b;
  }
};
struct Sub {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return a - b;
  }
};
struct Mul {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return a * b;
  }
};
struct Div {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return a / b;
  }
};
struct Pow {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Exact integer powers by squaring (device pow of doubles may round 3^3 to 26).
      if constexpr (std::is_signed_v<T>) {
        if (b < T(0)) return (a == T(1) || a == T(-1)) ? ((b % T(2)) ? a : T(1)) : T(0);
      }
      // Square only while exponent bits remain, so no intermediate overflows before the result.
      T result = 1;
      for (T e = b;; e /= T(2)) {
        if (e % T(2)) result *= a;
        if (e / T(2) == T(0)) break;
        a *= a;
      }
      return result;
    }
  }
};
struct Maximum {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return (a >= b || a != a) ? a : b;  // NaN propagates
  }
};
struct Minimum {
  template <typename T>
  KILN_HD T operator()(T a, T b) const {
    return (a <= b || a != a) ? a : b;
  }
};
struct Equal {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a == b;
  }
};
struct NotEqual {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Less {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LessEqual {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Greater {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a > b;
  }
};
struct GreaterEqual {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a >= b;
  }
};
struct LogicalAnd {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a && b;
  }
};
struct LogicalOr {
  template <typename T>
  KILN_HD bool operator()(T a, T b) const {
    return a || b;
  }
};
struct LogicalNot {
  template <typename T>
  KILN_HD bool operator()(T a) const {
    return !a;
  }
};

}  // namespace kiln::fn
