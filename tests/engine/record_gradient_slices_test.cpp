// The pass that hands rnn_sequence_grad the gradient of a slice of the record instead of a
// zero-filled gradient of the whole record: traced gradients equal eager ones (which take the
// full record's gradient) for the slices layers take, and other slices are left alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "kiln/framework/ops/slice_bounds.h"
#include "kiln/framework/random/random.h"

namespace kiln::engine {
namespace {

using rnn::Activation;
using rnn::Cell;

constexpr int64_t kBatch = 6, kTime = 9, kUnits = 7;

Tensor uniform(const Shape& shape, uint64_t seed) {
  random::Generator gen(seed);
  return random::uniform(shape, -1, 1, DType::f32, gen);
}

struct Slice {
  std::vector<int64_t> begin, end, strides;
  bool folds;
};

// With initial_states, the gradient includes the initial states' (row 0 of the kernel's output);
// without, the states are a constant and the kernel writes the steps' rows alone.
void expect_traced_equals_eager(Cell cell, const Slice& slice, bool initial_states = true) {
  const rnn::CellLayout layout{cell, kUnits};
  const int64_t width = layout.gates() * kUnits;
  std::vector<float> keep(static_cast<size_t>(kBatch * kTime), 1);
  for (int64_t t = kTime - 4; t < kTime; ++t) keep[static_cast<size_t>(2 * kTime + t)] = 0;
  const Tensor mask = ops::greater(from_vector(keep, {kBatch, kTime}), 0.5);
  const Tensor bias = uniform({width}, 5);
  const Tensor fixed_states = uniform({kBatch, layout.states(), kUnits}, 2);
  const auto loss = [&](const std::vector<Tensor>& v) {
    const ops::RnnSequenceArgs args{
        cell, Activation::tanh, Activation::sigmoid, false, cell == Cell::gru ? bias : Tensor(),
        mask, Tensor()};
    const Tensor& states = initial_states ? v[2] : fixed_states;
    const Tensor record = ops::rnn_sequence(v[0], states, v[1], args);
    const Tensor out = ops::strided_slice(record, slice.begin, slice.end, slice.strides);
    return ops::sum(ops::square(out));
  };
  std::vector<Tensor> inputs{uniform({kBatch, kTime, width}, 1), uniform({kUnits, width}, 3)};
  if (initial_states) inputs.push_back(fixed_states);
  auto traced = function([&](const std::vector<Tensor>& v) { return grad(loss, v); });
  const std::vector<Tensor> got = traced(inputs), want = grad(loss, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_EQ(got[k].to_vector<float>(), want[k].to_vector<float>()) << "gradient " << k;
  const std::string text = traced.graph_text();
  EXPECT_EQ(text.find("strided_slice_grad") == std::string::npos, slice.folds) << text;
  EXPECT_EQ(text.find("d_begin") != std::string::npos, slice.folds) << text;
}

TEST(RecordGradientSlices, TracedGradientsEqualEager) {
  const Slice last_h{{0, -1, 0}, {kSliceEnd, kSliceEnd, kUnits}, {1, 1, 1}, true};
  const Slice every_h{{0, 1, 0}, {kSliceEnd, kSliceEnd, kUnits}, {1, 1, 1}, true};
  // The initial states' row and the cell state's columns: row 0 and columns past h.
  const Slice first_rows_c{{0, 0, kUnits}, {kSliceEnd, 3, 2 * kUnits}, {1, 1, 1}, true};
  const Slice every_other_step{{0, 1, 0}, {kSliceEnd, kSliceEnd, kUnits}, {1, 2, 1}, false};
  const Slice half_batch{{0, 1, 0}, {3, kSliceEnd, kUnits}, {1, 1, 1}, false};
  for (Cell cell : {Cell::simple, Cell::gru, Cell::lstm}) {
    SCOPED_TRACE(static_cast<int>(cell));
    expect_traced_equals_eager(cell, last_h);
    expect_traced_equals_eager(cell, every_h);
    expect_traced_equals_eager(cell, every_other_step);
    expect_traced_equals_eager(cell, half_batch);
    expect_traced_equals_eager(cell, last_h, /*initial_states=*/false);
    expect_traced_equals_eager(cell, every_h, /*initial_states=*/false);
  }
  expect_traced_equals_eager(Cell::lstm, first_rows_c);
}

}  // namespace
}  // namespace kiln::engine
