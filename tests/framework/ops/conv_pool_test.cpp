// Convolution and pooling: the oneDNN float32 and bfloat16 kernels against the reference loops
// (which float64 takes), float64 gradient checks, hand-checked values and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>

#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "tests/framework/gradcheck.h"
#include "tests/test_support/expect_close.h"

namespace kiln {
namespace {

using testing::expect_gradients_match;
using testing::GradCheckOptions;
using ::testing::HasSubstr;
using testing::random_f64;

// ---- cases ----

// The forward op's output shape, from its own inference.
Shape inferred(OpId op, const std::vector<Shape>& inputs, const Attrs& attrs) {
  std::vector<TensorMeta> metas;
  for (const Shape& s : inputs) metas.push_back({DType::f64, s, {}});
  return infer_meta(op, metas, attrs).shape;
}

struct ConvCase {
  Shape x;  // NHWC
  int64_t kh, kw, out_channels;
  std::vector<int64_t> strides, dilation;
  bool same;
  int64_t groups;

  Shape kernel() const { return {kh, kw, x[3] / groups, out_channels}; }
  Attrs attrs() const {
    return {{"strides", strides}, {"dilation", dilation}, {"same", same}, {"groups", groups}};
  }
  Shape out() const { return inferred(OpId::conv2d, {x, kernel()}, attrs()); }
};

std::ostream& operator<<(std::ostream& os, const ConvCase& c) {
  return os << "conv x" << c.x << " k" << c.kernel() << " " << c.attrs().to_string();
}

const std::vector<ConvCase> kConvCases = {
    {{1, 5, 5, 3}, 1, 1, 4, {1, 1}, {1, 1}, false, 1},   // 1x1
    {{3, 7, 6, 4}, 3, 3, 6, {1, 1}, {1, 1}, false, 1},   // batch 3
    {{3, 7, 6, 4}, 3, 3, 6, {1, 1}, {1, 1}, true, 1},    // same
    {{2, 9, 8, 3}, 3, 3, 5, {2, 2}, {1, 1}, true, 1},    // stride 2, extra padding after
    {{2, 9, 8, 3}, 3, 3, 5, {2, 2}, {1, 1}, false, 1},   // stride 2, rows left over
    {{1, 11, 10, 2}, 5, 5, 3, {1, 1}, {1, 1}, true, 1},  // 5x5
    {{1, 11, 9, 2}, 3, 3, 4, {1, 1}, {2, 2}, false, 1},  // dilation 2
    {{2, 10, 9, 2}, 3, 3, 4, {2, 1}, {2, 2}, true, 1},   // dilation and stride, same
    {{3, 8, 7, 4}, 3, 3, 6, {1, 1}, {1, 1}, true, 2},    // groups 2
    {{1, 9, 9, 4}, 5, 5, 4, {2, 2}, {1, 1}, true, 2},    // groups, 5x5, stride 2
    {{2, 6, 7, 6}, 3, 3, 6, {1, 2}, {2, 1}, false, 3},   // groups 3, mixed strides/dilation
    {{1, 8, 8, 4}, 3, 3, 4, {1, 1}, {1, 1}, true, 4},    // depthwise
    {{2, 13, 11, 3}, 5, 3, 7, {2, 3}, {1, 1}, true, 1},  // odd, rectangular
    {{1, 4, 5, 2}, 2, 2, 3, {3, 3}, {1, 1}, true, 1},    // stride larger than the kernel
};

struct PoolCase {
  Shape x;  // NHWC
  std::vector<int64_t> pool_size, strides;
  bool same;

  Attrs attrs() const { return {{"pool_size", pool_size}, {"strides", strides}, {"same", same}}; }
  Shape out() const { return inferred(OpId::max_pool2d, {x}, attrs()); }
};

std::ostream& operator<<(std::ostream& os, const PoolCase& c) {
  return os << "pool x" << c.x << " " << c.attrs().to_string();
}

const std::vector<PoolCase> kPoolCases = {
    {{1, 4, 4, 1}, {2, 2}, {2, 2}, false},  // tiles exactly
    {{3, 7, 7, 3}, {3, 3}, {2, 2}, true},   // batch 3, padding both sides
    {{3, 7, 7, 3}, {3, 3}, {2, 2}, false},
    {{2, 6, 5, 4}, {3, 3}, {1, 1}, true},   // overlapping windows
    {{1, 9, 8, 2}, {2, 3}, {3, 2}, true},   // rectangular, padding after only
    {{2, 5, 5, 3}, {5, 5}, {1, 1}, true},   // 5x5
    {{2, 4, 4, 2}, {1, 1}, {1, 1}, false},  // 1x1
    {{1, 5, 7, 2}, {2, 2}, {3, 3}, true},   // stride larger than the window
};

Attrs with(Attrs attrs, const char* key, const Shape& shape) {
  attrs.set(key, shape.dims());
  return attrs;
}

Attrs with_flag(Attrs attrs, const char* key, bool value) {
  attrs.set(key, value);
  return attrs;
}

// Distinct values (a shuffled ramp) spaced `step` apart around zero: max pooling has no ties.
Tensor distinct_f64(const Shape& shape, double step = 0.01, uint32_t seed = 5) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  std::iota(v.begin(), v.end(), -static_cast<double>(v.size()) / 2);
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (double& e : v) e *= step;
  return from_vector(v, shape);
}

// ---- the seven ops on one case ----

struct OpCall {
  OpId op;
  std::vector<Tensor> inputs;  // float64
  Attrs attrs;
};

std::vector<OpCall> conv_calls(const ConvCase& c) {
  const Tensor x = random_f64(c.x, -1, 1, 1);
  const Tensor w = random_f64(c.kernel(), -1, 1, 2);
  const Tensor g = random_f64(c.out(), -1, 1, 3);
  return {{OpId::conv2d, {x, w}, c.attrs()},
          {OpId::conv2d_backprop_input, {g, w}, with(c.attrs(), "input_shape", c.x)},
          {OpId::conv2d_backprop_filter, {x, g}, with(c.attrs(), "filter_shape", c.kernel())}};
}

std::vector<OpCall> pool_calls(const PoolCase& c) {
  const Tensor x = distinct_f64(c.x);
  const Tensor g = random_f64(c.out(), -1, 1, 3);
  return {{OpId::max_pool2d, {x}, c.attrs()},
          {OpId::max_pool2d_grad, {x, g}, c.attrs()},
          {OpId::avg_pool2d, {x}, c.attrs()},
          {OpId::avg_pool2d_grad, {g}, with(c.attrs(), "input_shape", c.x)}};
}

// Runs call in `dtype` and in float64 on the same (rounded) inputs. Float64 takes the reference
// loops, which sum in double, so the two differ by dtype's accumulation and final rounding.
void expect_matches_reference(const OpCall& call, DType dtype, double tol,
                              const std::string& what) {
  std::vector<Tensor> low, exact;
  for (const Tensor& t : call.inputs) {
    low.push_back(ops::cast(t, dtype));
    exact.push_back(ops::cast(low.back(), DType::f64));
  }
  const Tensor got = apply(call.op, low, call.attrs);
  const Tensor want = apply(call.op, exact, call.attrs);
  ASSERT_EQ(got.dtype(), dtype);
  ASSERT_EQ(got.shape(), want.shape()) << op_def(call.op).name << " " << what;
  const auto g = got.to_vector<double>(), r = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], r[i], tol * (1 + std::abs(r[i])))
        << op_def(call.op).name << " " << what << " element " << i;
  }
}

TEST(Conv2d, OneDnnMatchesReference) {
  for (const ConvCase& c : kConvCases) {
    for (const OpCall& call : conv_calls(c)) {
      expect_matches_reference(call, DType::f32, 1e-5, ::testing::PrintToString(c));
    }
  }
}

// The fused op the graph pass makes computes what the three ops compute. oneDNN's fused and plain
// convolution kernels may block the kh*kw*cin sum differently on a given instruction set, so the
// two agree to that reduction's rounding (tests/test_support/expect_close.h); in bfloat16 the
// fused op is their float32 value rounded once.
TEST(Conv2dBiasActivation, EqualsConvolutionThenBiasThenRelu) {
  for (const ConvCase& c : kConvCases) {
    for (const DType dtype : {DType::f32, DType::f64, DType::bf16}) {
      const Tensor x = ops::cast(random_f64(c.x, -1, 1, 1), dtype);
      const Tensor w = ops::cast(random_f64(c.kernel(), -1, 1, 2), dtype);
      const Tensor b = ops::cast(random_f64({c.out_channels}, -1, 1, 4), dtype);
      // bfloat16's reference sums in float32 on the same values.
      const DType wide = dtype == DType::bf16 ? DType::f32 : dtype;
      const Tensor biased =
          ops::conv2d(ops::cast(x, wide), ops::cast(w, wide), c.strides,
                      c.same ? ops::Padding::same : ops::Padding::valid, c.dilation, c.groups) +
          ops::cast(b, wide);
      for (const bool relu : {false, true}) {
        const Tensor got =
            apply(OpId::conv2d_bias_activation, {x, w, b}, with_flag(c.attrs(), "relu", relu));
        const Tensor want = relu ? ops::relu(biased) : biased;
        const int64_t sum_length = c.kh * c.kw * c.kernel()[2];
        const std::string what = ::testing::PrintToString(c) + " " +
                                 std::string(dtype_name(dtype)) + " relu=" + std::to_string(relu);
        if (dtype == DType::bf16)
          testing::expect_bf16_rounded_once(got, want, sum_length, what);
        else
          testing::expect_close_after_reductions(got, want, sum_length, what);
      }
    }
  }
}

TEST(Pool2d, OneDnnMatchesReference) {
  for (const PoolCase& c : kPoolCases) {
    for (const OpCall& call : pool_calls(c)) {
      expect_matches_reference(call, DType::f32, 1e-6, ::testing::PrintToString(c));
    }
  }
}

// bfloat16 runs on oneDNN, on float32 copies where oneDNN has no bfloat16 (as under
// ONEDNN_MAX_CPU_ISA=AVX2): every case against float64 on the same rounded inputs, within
// bfloat16's rounding of the float32 sums.
TEST(ConvPool, BFloat16MatchesFloat64) {
  for (const ConvCase& c : kConvCases) {
    for (const OpCall& call : conv_calls(c)) {
      expect_matches_reference(call, DType::bf16, 1e-2, ::testing::PrintToString(c));
    }
  }
  for (const PoolCase& c : kPoolCases) {
    for (const OpCall& call : pool_calls(c)) {
      expect_matches_reference(call, DType::bf16, 1e-2, ::testing::PrintToString(c));
    }
  }
}

// float16 takes the reference loops, which round once on store. One grouped, strided, padded
// convolution and one overlapping pooling cover their loops.
TEST(ConvPool, Float16MatchesFloat64) {
  const ConvCase& conv = kConvCases[9];
  const PoolCase& pool = kPoolCases[3];
  for (const OpCall& call : conv_calls(conv)) {
    expect_matches_reference(call, DType::f16, 2e-3, ::testing::PrintToString(conv));
  }
  for (const OpCall& call : pool_calls(pool)) {
    expect_matches_reference(call, DType::f16, 2e-3, ::testing::PrintToString(pool));
  }
}

// ---- float64 gradient checks ----

const std::vector<ConvCase> kGradConvCases = {
    {{1, 5, 5, 2}, 3, 3, 2, {1, 1}, {1, 1}, false, 1},
    {{2, 5, 4, 2}, 3, 2, 3, {2, 2}, {1, 1}, true, 1},
    {{1, 6, 6, 4}, 3, 3, 4, {1, 1}, {2, 2}, true, 2},
};

TEST(Conv2d, Gradients) {
  for (const ConvCase& c : kGradConvCases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) {
          return ops::conv2d(in[0], in[1], c.strides,
                             c.same ? ops::Padding::same : ops::Padding::valid, c.dilation,
                             c.groups);
        },
        {random_f64(c.x, -1, 1, 1), random_f64(c.kernel(), -1, 1, 2)});
  }
}

TEST(Conv1d, Gradients) {
  expect_gradients_match(
      [](const std::vector<Tensor>& in) {
        return ops::conv1d(in[0], in[1], 2, ops::Padding::same);
      },
      {random_f64({2, 7, 2}, -1, 1, 1), random_f64({3, 2, 3}, -1, 1, 2)});
  expect_gradients_match(
      [](const std::vector<Tensor>& in) {
        return ops::conv1d(in[0], in[1], 1, ops::Padding::valid, 2, 2);
      },
      {random_f64({1, 8, 4}, -1, 1, 3), random_f64({3, 2, 4}, -1, 1, 4)});
}

// The backward ops are differentiable too (second-order gradients of conv2d).
TEST(Conv2dBackpropInput, Gradients) {
  for (const ConvCase& c : kGradConvCases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    const Attrs attrs = with(c.attrs(), "input_shape", c.x);
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) {
          return apply(OpId::conv2d_backprop_input, in, attrs);
        },
        {random_f64(c.out(), -1, 1, 3), random_f64(c.kernel(), -1, 1, 2)});
  }
}

TEST(Conv2dBackpropFilter, Gradients) {
  for (const ConvCase& c : kGradConvCases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    const Attrs attrs = with(c.attrs(), "filter_shape", c.kernel());
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) {
          return apply(OpId::conv2d_backprop_filter, in, attrs);
        },
        {random_f64(c.x, -1, 1, 1), random_f64(c.out(), -1, 1, 3)});
  }
}

const std::vector<PoolCase> kGradPoolCases = {
    {{2, 5, 5, 2}, {3, 3}, {2, 2}, true},
    {{1, 5, 4, 2}, {2, 2}, {1, 1}, false},
    {{1, 4, 5, 1}, {2, 3}, {1, 2}, true},
};

TEST(AvgPool2d, Gradients) {
  for (const PoolCase& c : kGradPoolCases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return apply(OpId::avg_pool2d, in, c.attrs()); },
        {random_f64(c.x)});
    const Attrs grad_attrs = with(c.attrs(), "input_shape", c.x);
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return apply(OpId::avg_pool2d_grad, in, grad_attrs); },
        {random_f64(c.out())});
  }
}

TEST(MaxPool2d, Gradients) {
  for (const PoolCase& c : kGradPoolCases) {
    SCOPED_TRACE(::testing::PrintToString(c));
    // Values 0.01 apart: a 1e-4 step never changes a window's argmax.
    expect_gradients_match(
        [&](const std::vector<Tensor>& in) { return apply(OpId::max_pool2d, in, c.attrs()); },
        {distinct_f64(c.x)}, GradCheckOptions::nonsmooth());
  }
}

// ---- hand-checked values, on both paths ----

const DType kBothPaths[] = {DType::f32, DType::f64};

std::vector<double> values(const Tensor& t) {
  return t.to_vector<double>();
}

TEST(Conv2d, OneByOneKernelIsAMatmul) {
  for (DType dtype : kBothPaths) {
    const Tensor x = ops::cast(random_f64({2, 3, 4, 5}), dtype);
    const Tensor w = ops::cast(random_f64({1, 1, 5, 6}, -1, 1, 8), dtype);
    const Tensor want =
        ops::reshape(ops::matmul(ops::reshape(x, {24, 5}), ops::reshape(w, {5, 6})), {2, 3, 4, 6});
    const auto got = values(ops::conv2d(x, w)), exp = values(want);
    ASSERT_EQ(got.size(), exp.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], exp[i], 1e-5);
  }
}

// oneDNN rejects convolutions with zero channels; those and empty batches still give the empty
// sums, zeros.
TEST(Conv2d, EmptyOperandsGiveZeros) {
  for (DType dtype : kBothPaths) {
    EXPECT_EQ(values(ops::conv2d(zeros({1, 3, 3, 0}, dtype), zeros({1, 1, 0, 2}, dtype))),
              std::vector<double>(18, 0.0));
    const ConvCase c{{0, 5, 5, 2}, 3, 3, 4, {1, 1}, {1, 1}, true, 1};
    const Tensor dw =
        apply(OpId::conv2d_backprop_filter, {zeros(c.x, dtype), zeros(c.out(), dtype)},
              with(c.attrs(), "filter_shape", c.kernel()));
    EXPECT_EQ(values(dw), std::vector<double>(static_cast<size_t>(c.kernel().numel()), 0.0));
  }
}

// TensorFlow's "same" puts the odd padding cell after: [1..6] with a 3-tap box filter and stride
// 2 reads [1 2 3], [3 4 5], [5 6 pad].
TEST(Conv2d, SamePaddingPutsTheExtraCellAfter) {
  for (DType dtype : kBothPaths) {
    const Tensor x = ops::cast(tensor({1, 2, 3, 4, 5, 6}, {1, 6, 1}), dtype);
    const Tensor box = ones({3, 1, 1}, dtype);
    EXPECT_EQ(values(ops::conv1d(x, box, 2, ops::Padding::same)), (std::vector<double>{6, 12, 11}));
    const Tensor pair = ones({2, 1, 1}, dtype);
    EXPECT_EQ(values(ops::conv1d(ops::slice(x, {0, 0, 0}, {1, 4, 1}), pair, 1, ops::Padding::same)),
              (std::vector<double>{3, 5, 7, 4}));
  }
}

TEST(Conv2d, HandComputedDilatedAndGrouped) {
  for (DType dtype : kBothPaths) {
    // 1..9 in a 3x3 image; a 2x2 kernel of ones dilated by 2 sums the corners.
    const Tensor x = ops::cast(tensor({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1}), dtype);
    EXPECT_EQ(
        values(ops::conv2d(x, ones({2, 2, 1, 1}, dtype), {1, 1}, ops::Padding::valid, {2, 2})),
        (std::vector<double>{20}));
    // Two groups of one channel: each output channel sees only its own input channel.
    const Tensor x2 = ops::cast(tensor({1, 10, 2, 20}, {1, 1, 2, 2}), dtype);
    const Tensor w2 = ops::cast(tensor({1, 1, 1, 1}, {1, 2, 1, 2}), dtype);
    EXPECT_EQ(values(ops::conv2d(x2, w2, {1, 1}, ops::Padding::valid, {1, 1}, 2)),
              (std::vector<double>{3, 30}));
  }
}

TEST(Pool2d, HandComputedWindows) {
  for (DType dtype : kBothPaths) {
    const Tensor x = ops::cast(arange(1, 17, 1, DType::f64), dtype);
    const Tensor img = ops::reshape(x, {1, 4, 4, 1});
    EXPECT_EQ(values(ops::max_pool2d(img, {2, 2})), (std::vector<double>{6, 8, 14, 16}));
    EXPECT_EQ(values(ops::avg_pool2d(img, {2, 2})), (std::vector<double>{3.5, 5.5, 11.5, 13.5}));
    // Same padding with stride 1 pads after only; averages count real cells alone.
    const Tensor small = ops::cast(tensor({1, 2, 3, 4}, {1, 2, 2, 1}), dtype);
    EXPECT_EQ(values(ops::avg_pool2d(small, {2, 2}, {1, 1}, ops::Padding::same)),
              (std::vector<double>{2.5, 3, 3.5, 4}));
  }
}

TEST(AvgPool2d, ConstantStaysConstantWithSamePadding) {
  for (DType dtype : kBothPaths) {
    const Tensor y =
        ops::avg_pool2d(full({2, 5, 6, 3}, 3.5, dtype), {3, 3}, {2, 2}, ops::Padding::same);
    for (double v : values(y)) EXPECT_DOUBLE_EQ(v, 3.5);
  }
}

TEST(MaxPool2d, PaddingNeverWins) {
  for (DType dtype : kBothPaths) {
    const Tensor x = ops::cast(random_f64({2, 5, 5, 3}, -2, -1), dtype);
    for (double v : values(ops::max_pool2d(x, {3, 3}, {2, 2}, ops::Padding::same))) {
      EXPECT_LT(v, -1 + 1e-12);
    }
  }
}

// On ties the first cell in scan order takes the whole gradient: with overlapping 2x2 windows
// over a constant 3x3 image, windows start at (0,0), (0,1), (1,0), (1,1).
TEST(MaxPool2d, FirstMaxWinsTies) {
  for (DType dtype : kBothPaths) {
    const Tensor x = ones({1, 3, 3, 1}, dtype);
    const Tensor g = ones({1, 2, 2, 1}, dtype);
    const Tensor dx = apply(OpId::max_pool2d_grad, {x, g},
                            {{"pool_size", std::vector<int64_t>{2, 2}},
                             {"strides", std::vector<int64_t>{1, 1}},
                             {"same", false}});
    EXPECT_EQ(values(dx), (std::vector<double>{1, 1, 0, 1, 1, 0, 0, 0, 0}));
  }
}

// ---- the max pool that keeps its argmax (made by the graph pass keep_pool_argmax) ----

Attrs with_input_hw(Attrs attrs, const Shape& x) {
  attrs.set("input_hw", std::vector<int64_t>{x[1], x[2]});
  return attrs;
}

// Its pooled values are max_pool2d's; its argmax, oneDNN's workspace in float32 and bfloat16 and
// the reference loops' in float64, is the same in all; the gradient from it is max_pool2d_grad's.
// The inputs are multiples of 1/64 below 4 in magnitude, exact in bfloat16, so no rounding makes
// a tie.
TEST(MaxPool2dWithArgmax, PoolsAsMaxPoolAndItsGradientIsMaxPoolGrads) {
  for (const PoolCase& c : kPoolCases) {
    const Tensor x64 = distinct_f64(c.x, 1.0 / 64);
    const Tensor g64 = random_f64(c.out(), -1, 1, 3);
    std::vector<uint8_t> reference_argmax;
    for (const DType dtype : {DType::f64, DType::f32, DType::bf16}) {
      const Tensor x = ops::cast(x64, dtype), g = ops::cast(g64, dtype);
      const std::vector<Tensor> out = apply_multi(OpId::max_pool2d_with_argmax, {x}, c.attrs());
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(values(out[0]), values(apply(OpId::max_pool2d, {x}, c.attrs())));
      ASSERT_EQ(out[1].meta(), (TensorMeta{DType::u8, c.out(), Device::cpu()})) << c;
      const std::vector<uint8_t> argmax = out[1].to_vector<uint8_t>();
      if (dtype == DType::f64)
        reference_argmax = argmax;
      else
        EXPECT_EQ(argmax, reference_argmax) << c;
      const Tensor dx =
          apply(OpId::max_pool2d_grad_from_argmax, {out[1], g}, with_input_hw(c.attrs(), c.x));
      EXPECT_EQ(values(dx), values(apply(OpId::max_pool2d_grad, {x, g}, c.attrs())))
          << c << " " << dtype_name(dtype);
    }
  }
}

// Windows that tile the input (strides equal to the pool, no padding) run kiln's own float32 loops
// (tiled_max_pool.h): values, argmax and gradient equal the float64 reference loops', for channel
// counts that leave vector remainders, rows and columns past the last window, rectangular windows,
// ties (the first position wins) and batches split across threads.
TEST(MaxPool2dWithArgmax, TilingWindowsAgreeWithTheReferenceLoops) {
  const auto attrs_of = [](std::vector<int64_t> pool) {
    return Attrs{{"pool_size", pool}, {"strides", pool}, {"same", false}};
  };
  struct Tiled {
    Shape x;
    std::vector<int64_t> pool;
  };
  for (const Tiled& c : {Tiled{{2, 7, 9, 3}, {2, 2}}, Tiled{{3, 8, 9, 17}, {2, 3}},
                         Tiled{{4, 26, 26, 32}, {2, 2}}, Tiled{{1, 6, 7, 64}, {3, 3}}}) {
    const Attrs attrs = attrs_of(c.pool);
    for (const bool ties : {false, true}) {
      // With ties, every positive value is cut to 0: the first of equal cells must win.
      const Tensor x64 = ties ? ops::minimum(distinct_f64(c.x), 0.0) : distinct_f64(c.x);
      const std::vector<Tensor> want = apply_multi(OpId::max_pool2d_with_argmax, {x64}, attrs);
      const std::vector<Tensor> got =
          apply_multi(OpId::max_pool2d_with_argmax, {ops::cast(x64, DType::f32)}, attrs);
      const std::string what = ::testing::PrintToString(c.x) + (ties ? " with ties" : "");
      EXPECT_EQ(values(got[0]), values(ops::cast(want[0], DType::f32))) << what;
      EXPECT_EQ(got[1].to_vector<uint8_t>(), want[1].to_vector<uint8_t>()) << what;
      // The forward without argmax runs the same loops' other branch.
      EXPECT_EQ(values(apply(OpId::max_pool2d, {ops::cast(x64, DType::f32)}, attrs)),
                values(got[0]))
          << what;
      const Tensor g64 = random_f64(want[0].shape(), -1, 1, 5);
      const Attrs grad_attrs = with_input_hw(attrs, c.x);
      EXPECT_EQ(
          values(apply(OpId::max_pool2d_grad_from_argmax, {got[1], ops::cast(g64, DType::f32)},
                       grad_attrs)),
          values(ops::cast(apply(OpId::max_pool2d_grad_from_argmax, {want[1], g64}, grad_attrs),
                           DType::f32)))
          << what;
    }
  }
}

// A window position is kh * pool width + kw, padding cells counted: the one cell of a 1x1 image
// sits at the middle (4) of a 3x3 'same' window.
TEST(MaxPool2dWithArgmax, HandComputedPositions) {
  const auto argmax_of = [](const Tensor& x, std::vector<int64_t> pool, bool same) {
    const Attrs attrs{{"pool_size", pool}, {"strides", std::vector<int64_t>{1, 1}}, {"same", same}};
    const std::vector<uint8_t> a =
        apply_multi(OpId::max_pool2d_with_argmax, {x}, attrs)[1].to_vector<uint8_t>();
    return std::vector<int>(a.begin(), a.end());
  };
  for (DType dtype : kBothPaths) {
    const Tensor two_rows = ops::cast(tensor({1, 9, 2, 7, 3, 8}, {1, 2, 3, 1}), dtype);
    EXPECT_EQ(argmax_of(two_rows, {2, 2}, false), (std::vector<int>{1, 0}));
    const Tensor one_row = ops::cast(tensor({5, 6}, {1, 1, 2, 1}), dtype);
    EXPECT_EQ(argmax_of(one_row, {2, 2}, true), (std::vector<int>{1, 0}));
    EXPECT_EQ(argmax_of(ops::cast(tensor({4}, {1, 1, 1, 1}), dtype), {3, 3}, true),
              (std::vector<int>{4}));
  }
}

// ---- errors ----

void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing " << parts[0];
  } catch (const Error& e) {
    for (const std::string& p : parts) EXPECT_THAT(e.what(), HasSubstr(p));
  }
}

TEST(ConvPoolErrors, NameTheOpAndShapes) {
  expect_error(
      [] {
        (void)ops::conv2d(zeros({5, 5, 3}), zeros({3, 3, 3, 4}));
      },
      {"kiln::ops::conv2d", "rank 4", "float32[5, 5, 3]", "float32[3, 3, 3, 4]"});
  expect_error(
      [] {
        (void)ops::conv2d(zeros({1, 5, 5, 3}), zeros({3, 3, 2, 4}));
      },
      {"kiln::ops::conv2d", "input channels 3", "float32[1, 5, 5, 3]", "float32[3, 3, 2, 4]"});
  expect_error(
      [] {
        (void)ops::conv2d(zeros({1, 5, 5, 4}), zeros({3, 3, 2, 3}), {1, 1}, ops::Padding::valid,
                          {1, 1}, 2);
      },
      {"kiln::ops::conv2d", "not divisible by groups=2", "float32[3, 3, 2, 3]"});
  expect_error(
      [] {
        (void)ops::conv2d(zeros({1, 2, 2, 1}), zeros({3, 3, 1, 1}));
      },
      {"kiln::ops::conv2d", "does not fit", "float32[1, 2, 2, 1]"});
  expect_error(
      [] {
        (void)ops::conv2d(zeros({1, 5, 5, 1}), zeros({3, 3, 1, 1}, DType::f64));
      },
      {"kiln::ops::conv2d", "dtypes differ", "float64[3, 3, 1, 1]"});
  expect_error(
      [] {
        (void)ops::max_pool2d(zeros({4, 4, 1}), {2, 2});
      },
      {"kiln::ops::max_pool2d", "rank 4", "float32[4, 4, 1]"});
  expect_error(
      [] {
        (void)ops::avg_pool2d(zeros({1, 2, 2, 1}), {3, 3});
      },
      {"kiln::ops::avg_pool2d", "does not fit", "float32[1, 2, 2, 1]"});
  const Attrs window16{{"pool_size", std::vector<int64_t>{16, 16}},
                       {"strides", std::vector<int64_t>{1, 1}},
                       {"same", false}};
  expect_error(
      [&] {
        (void)apply_multi(OpId::max_pool2d_with_argmax, {zeros({1, 20, 20, 1})}, window16);
      },
      {"kiln::ops::max_pool2d_with_argmax", "16x16 window", "more than the 255 cells"});
  expect_error(
      [] {
        (void)apply(OpId::max_pool2d_grad_from_argmax, {zeros({1, 2, 2, 1}), zeros({1, 2, 2, 1})},
                    with_input_hw(kPoolCases[0].attrs(), kPoolCases[0].x));
      },
      {"kiln::ops::max_pool2d_grad_from_argmax", "argmax float32[1, 2, 2, 1] is not uint8"});
  // The reference loops check each position (a 2x2 window has four).
  expect_error(
      [] {
        const Tensor past_the_window = ops::cast(zeros({1, 2, 2, 1}) + 4.0, DType::u8);
        (void)apply(OpId::max_pool2d_grad_from_argmax,
                    {past_the_window, zeros({1, 2, 2, 1}, DType::f64)},
                    with_input_hw(kPoolCases[0].attrs(), kPoolCases[0].x));
      },
      {"max_pool2d_grad_from_argmax", "argmax 4 of pooled value 0", "2x2 window", "4x4 input"});
}

// The backward ops infer their output from an attr; their kernels still reject an incoming
// gradient that does not match the forward output.
TEST(ConvPoolErrors, BackwardOpsCheckTheIncomingGradient) {
  const ConvCase c = kConvCases[1];
  for (DType dtype : kBothPaths) {
    expect_error(
        [&] {
          (void)apply(OpId::conv2d_backprop_input,
                      {zeros({3, 5, 5, 6}, dtype), zeros(c.kernel(), dtype)},
                      with(c.attrs(), "input_shape", c.x));
        },
        {"kiln::ops::conv2d_backprop_input", "incoming gradient", "[3, 5, 5, 6]", "[3, 5, 4, 6]"});
    expect_error(
        [&] {
          (void)apply(OpId::max_pool2d_grad,
                      {zeros({1, 4, 4, 1}, dtype), zeros({1, 3, 3, 1}, dtype)},
                      kPoolCases[0].attrs());
        },
        {"kiln::ops::max_pool2d_grad", "incoming gradient", "[1, 3, 3, 1]", "[1, 2, 2, 1]"});
  }
}

}  // namespace
}  // namespace kiln
