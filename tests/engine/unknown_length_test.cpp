// Sequences of unknown length in traced functions: slices of an axis of unknown size and the
// recurrent op's time loop resolve against the length each call brings, under one trace.
#include <gtest/gtest.h>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "kiln/framework/random/random.h"

namespace kiln {
namespace {

Tensor rand(const Shape& shape, uint64_t seed) {
  random::Generator gen(seed);
  return random::uniform(shape, -1, 1, DType::f32, gen);
}

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i]))) << i;
}

TEST(UnknownLength, SlicesResolveWhenTheOpRuns) {
  const auto fn = [](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    const auto loss = [](const std::vector<Tensor>& v) {
      const Tensor tail = ops::strided_slice(v[0], {0, 1}, {kSliceEnd, kSliceEnd}, {1, 1});
      const Tensor reversed =
          ops::strided_slice(v[0], {0, kSliceEnd}, {kSliceEnd, kSliceEnd}, {1, -1});
      const Tensor last_two = ops::strided_slice(v[0], {0, -2}, {kSliceEnd, kSliceEnd}, {1, 1});
      return ops::sum(tail * ops::sin(tail)) + ops::sum(reversed * v[0]) +
             3.0 * ops::sum(ops::square(last_two));
    };
    std::vector<Tensor> out = grad(loss, {x});
    out.push_back(loss({x}));
    out.push_back(ops::strided_slice(x, {0, -2}, {kSliceEnd, 0}, {1, -1}));
    return out;
  };
  auto traced =
      function(fn, {.input_signature = std::vector<TensorSpec>{TensorSpec({2, -1}, DType::f32)}});
  for (int64_t time : {1, 4, 7}) {
    SCOPED_TRACE(time);
    const std::vector<Tensor> x{rand({2, time}, static_cast<uint64_t>(time))};
    const auto got = traced(x);
    const auto want = fn(x);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i]);
  }
  EXPECT_EQ(traced.num_traces(), 1u);
}

// The time loop runs to the length the tensors have when the op runs: one trace serves every
// length, forward and backward.
TEST(UnknownLength, RecurrentOpTracesOnce) {
  constexpr int64_t batch = 3, units = 4, width = 3 * units;
  const Tensor states = rand({batch, 1, units}, 1);
  const Tensor recurrent_bias = rand({width}, 2);
  const auto fn = [&](const std::vector<Tensor>& in) {
    const auto loss = [&](const std::vector<Tensor>& w) {
      const Tensor r = ops::rnn_sequence(w[0], states, w[1],
                                         {.cell = rnn::Cell::gru,
                                          .reverse = true,
                                          .recurrent_bias = recurrent_bias,
                                          .mask = in[1]});
      return ops::sum(ops::square(ops::slice(r, {0, 1, 0}, {-1, -1, units})));
    };
    std::vector<Tensor> out = grad(loss, {in[0], in[2]});
    out.push_back(loss({in[0], in[2]}));
    return out;
  };
  auto traced = function(
      fn, {.input_signature = std::vector<TensorSpec>{TensorSpec({batch, -1, width}, DType::f32),
                                                      TensorSpec({batch, -1}, DType::boolean),
                                                      TensorSpec({units, width}, DType::f32)}});
  const Tensor kernel = rand({units, width}, 3);
  for (int64_t time : {2, 5, 3}) {
    SCOPED_TRACE(time);
    const std::vector<Tensor> in{rand({batch, time, width}, static_cast<uint64_t>(time)),
                                 ops::greater(rand({batch, time}, 9), -0.6), kernel};
    const auto got = traced(in);
    const auto want = fn(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i]);
  }
  EXPECT_EQ(traced.num_traces(), 1u);
}

}  // namespace
}  // namespace kiln
