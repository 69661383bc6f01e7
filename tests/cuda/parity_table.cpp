#include "tests/cuda/parity_table.h"

#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "kiln/framework/ops/slice_bounds.h"
#include "tests/cuda/device_compare.h"

namespace kiln::testing {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

const std::vector<DType> kFloating{DType::f32, DType::f64, DType::f16, DType::bf16};
const std::vector<DType> kNumeric{DType::f32, DType::f64, DType::f16, DType::bf16,
                                  DType::i32, DType::i64, DType::u8};
const std::vector<DType> kAll{DType::f32, DType::f64, DType::f16, DType::bf16,
                              DType::i32, DType::i64, DType::u8,  DType::boolean};

// Gradients are compared in float32 and float64, where the tolerance is meaningful, for ops
// with a gradient and a floating result (not a cast to an integer).
bool compares_gradients(OpId op, DType dtype, const Tensor& out) {
  return op_def(op).grad != nullptr && (dtype == DType::f32 || dtype == DType::f64) &&
         is_floating(out.dtype());
}

std::string label(OpId op, DType dtype, const std::vector<Tensor>& inputs) {
  std::ostringstream out;
  out << op_def(op).name << ' ' << dtype_name(dtype);
  for (const Tensor& t : inputs) out << ' ' << t.shape();
  return out.str();
}

void add(std::vector<ParityCase>& cases, OpId op, DType dtype, std::vector<Tensor> inputs, Fn fn) {
  const bool gradients = compares_gradients(op, dtype, fn(inputs));
  std::string name = label(op, dtype, inputs);
  cases.push_back({op, std::move(name), std::move(inputs), std::move(fn), gradients});
}

struct Unary {
  OpId op;
  Fn fn;
  const std::vector<DType>* dtypes;
  bool positive;  // domain
};

void unary_cases(std::vector<ParityCase>& cases) {
  const auto one = [](Tensor (*f)(const Tensor&)) {
    return [f](const std::vector<Tensor>& x) { return f(x[0]); };
  };
  const std::vector<Unary> ops{
      {OpId::neg, one(ops::neg), &kNumeric, false},
      {OpId::abs, one(ops::abs), &kNumeric, false},
      {OpId::sign, one(ops::sign), &kNumeric, false},
      {OpId::exp, one(ops::exp), &kFloating, false},
      {OpId::log, one(ops::log), &kFloating, true},
      {OpId::log1p, one(ops::log1p), &kFloating, true},
      {OpId::sqrt, one(ops::sqrt), &kFloating, true},
      {OpId::rsqrt, one(ops::rsqrt), &kFloating, true},
      {OpId::square, one(ops::square), &kNumeric, false},
      {OpId::tanh, one(ops::tanh), &kFloating, false},
      {OpId::sigmoid, one(ops::sigmoid), &kFloating, false},
      {OpId::relu, one(ops::relu), &kNumeric, false},
      {OpId::leaky_relu, [](const auto& x) { return ops::leaky_relu(x[0], 0.2); }, &kFloating,
       false},
      {OpId::elu, [](const auto& x) { return ops::elu(x[0], 0.7); }, &kFloating, false},
      {OpId::gelu, [](const auto& x) { return ops::gelu(x[0], false); }, &kFloating, false},
      {OpId::gelu, [](const auto& x) { return ops::gelu(x[0], true); }, &kFloating, false},
      {OpId::softplus, one(ops::softplus), &kFloating, false},
      {OpId::sin, one(ops::sin), &kFloating, false},
      {OpId::cos, one(ops::cos), &kFloating, false},
      {OpId::erf, one(ops::erf), &kFloating, false},
  };
  for (const Unary& u : ops)
    for (const DType dtype : *u.dtypes)
      add(cases, u.op, dtype, {values({4, 33}, dtype, u.positive || dtype == DType::u8)}, u.fn);
  add(cases, OpId::logical_not, DType::boolean, {values({7}, DType::boolean, false)},
      one(ops::logical_not));
}

void binary_cases(std::vector<ParityCase>& cases) {
  const auto two = [](Tensor (*f)(const Tensor&, const Tensor&)) {
    return [f](const std::vector<Tensor>& x) { return f(x[0], x[1]); };
  };
  const std::vector<DType> kBool{DType::boolean};
  const std::vector<std::tuple<OpId, Fn, const std::vector<DType>*>> ops{
      {OpId::add, two(ops::add), &kNumeric},
      {OpId::sub, two(ops::sub), &kNumeric},
      {OpId::mul, two(ops::mul), &kNumeric},
      {OpId::div, two(ops::div), &kNumeric},
      {OpId::pow, two(ops::pow), &kNumeric},
      {OpId::maximum, two(ops::maximum), &kNumeric},
      {OpId::minimum, two(ops::minimum), &kNumeric},
      {OpId::equal, two(ops::equal), &kAll},
      {OpId::not_equal, two(ops::not_equal), &kAll},
      {OpId::less, two(ops::less), &kAll},
      {OpId::less_equal, two(ops::less_equal), &kAll},
      {OpId::greater, two(ops::greater), &kAll},
      {OpId::greater_equal, two(ops::greater_equal), &kAll},
      {OpId::logical_and, two(ops::logical_and), &kBool},
      {OpId::logical_or, two(ops::logical_or), &kBool},
  };
  // Same shapes, a row, a scalar, and both operands broadcasting.
  const std::vector<std::pair<Shape, Shape>> shapes{{{2, 3, 4}, {2, 3, 4}},
                                                    {{2, 3, 4}, {4}},
                                                    {{}, {2, 3}},
                                                    {{2, 1, 4}, {3, 1}},
                                                    {{5, 1}, {1, 6}}};
  for (const auto& [op, fn, dtypes] : ops)
    for (const DType dtype : *dtypes)
      for (const auto& [a, b] : shapes)
        // Positive operands keep div and pow finite (and integer division away from zero).
        add(cases, op, dtype, {values(a, dtype, true), values(b, dtype, true)}, fn);
}

void other_cases(std::vector<ParityCase>& cases) {
  for (const DType dtype : kAll)
    add(cases, OpId::where, dtype,
        {values({2, 1, 4}, DType::boolean, false), values({3, 1}, dtype, true),
         values({}, dtype, false)},
        [](const auto& x) { return ops::where(x[0], x[1], x[2]); });
  // Non-negative values within every dtype's range: other casts are undefined in C++.
  const std::vector<double> v{0, 1, 2.5, 3.75, 17, 100, 0.125, 64};
  for (const DType from : kAll)
    for (const DType to : kAll)
      add(cases, OpId::cast, from, {from_vector(v, {2, 4}, from)},
          [to](const auto& x) { return ops::cast(x[0], to); });
  // One case per output of the Adam update (variable, m, v), over positive second moments.
  for (const DType dtype : {DType::f32, DType::f64})
    for (const int output : {0, 1, 2})
      add(cases, OpId::adam_update, dtype,
          {values({5, 67}, dtype, false), values({5, 67}, dtype, false),
           values({5, 67}, dtype, true), values({5, 67}, dtype, false),
           from_vector(std::vector<double>{1e-3}, {1}, dtype)},
          [output](const auto& x) {
            const ops::AdamUpdate u =
                ops::adam_update(x[0], x[1], x[2], x[3], x[4], 0.9, 0.999, 1e-7);
            return output == 0 ? u.variable : output == 1 ? u.m : u.v;
          });
  // A seeded draw is the same on both devices; 1001 values end inside a Philox block.
  for (const DType dtype : kFloating)
    add(cases, OpId::random_uniform, dtype,
        {values({7, 143}, dtype, false), from_vector(std::vector<int64_t>{1234567890123, 42}, {2})},
        [dtype](const auto& x) { return ops::random_uniform_like(x[0], x[1], dtype); });
}

void reduction_cases(std::vector<ParityCase>& cases) {
  const std::vector<std::vector<int64_t>> axes_cases{{}, {0}, {1}, {2}, {0, 2}, {1, 2}};
  using Reduce = Tensor (*)(const Tensor&, std::vector<int64_t>, bool);
  const std::vector<std::pair<OpId, Reduce>> reductions{
      {OpId::reduce_sum, ops::sum}, {OpId::reduce_max, ops::max}, {OpId::reduce_min, ops::min}};
  for (const auto& [op, reduce] : reductions)
    for (const DType dtype : kNumeric)
      for (const std::vector<int64_t>& axes : axes_cases)
        for (const bool keepdims : {false, true})
          add(cases, op, dtype, {values({3, 4, 5}, dtype, dtype == DType::u8)},
              [reduce, axes, keepdims](const auto& x) { return reduce(x[0], axes, keepdims); });
  // Rows longer than a block's threads.
  add(cases, OpId::reduce_sum, DType::f32, {values({3, 1000}, DType::f32, false)},
      [](const auto& x) { return ops::sum(x[0], {1}); });
  add(cases, OpId::reduce_max, DType::f32, {values({3, 1000}, DType::f32, false)},
      [](const auto& x) { return ops::max(x[0], {1}); });
  // Few factors, so that no dtype overflows.
  for (const DType dtype : kNumeric)
    for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, {2}, {1, 2}})
      add(cases, OpId::reduce_prod, dtype, {values({3, 4, 2}, dtype, true)},
          [axes](const auto& x) { return ops::prod(x[0], axes); });
  // The values repeat, so ties are common: both devices pick the first.
  for (const DType dtype : kNumeric)
    for (const int64_t axis : {0, 1, 2}) {
      add(cases, OpId::argmax, dtype, {values({3, 4, 5}, dtype, dtype == DType::u8)},
          [axis](const auto& x) { return ops::argmax(x[0], axis); });
      add(cases, OpId::argmin, dtype, {values({3, 4, 5}, dtype, dtype == DType::u8)},
          [axis](const auto& x) { return ops::argmin(x[0], axis); });
    }
  for (const DType dtype : {DType::f32, DType::i64})
    add(cases, OpId::size_of, dtype, {values({3, 4, 5}, DType::f32, false)},
        [dtype](const auto& x) {
          return ops::size_of(x[0], {0, 2}, dtype);
        });
}

void data_movement_cases(std::vector<ParityCase>& cases) {
  for (const DType dtype : kAll) {
    add(cases, OpId::transpose, dtype, {values({2, 3, 4}, dtype, false)}, [](const auto& x) {
      return ops::transpose(x[0], {2, 0, 1});
    });
    add(cases, OpId::broadcast_to, dtype, {values({3, 1}, dtype, false)}, [](const auto& x) {
      return ops::broadcast_to(x[0], Shape({2, 3, 5}));
    });
    add(cases, OpId::broadcast_like, dtype,
        {values({1, 4}, dtype, false), values({3, 4}, dtype, false)},
        [](const auto& x) { return ops::broadcast_like(x[0], x[1]); });
    // Steps of 2 and -2 are no view: the kernel copies.
    add(cases, OpId::strided_slice, dtype, {values({5, 6}, dtype, false)}, [](const auto& x) {
      return ops::strided_slice(x[0], {1, kSliceEnd}, {kSliceEnd, 0}, {2, -2});
    });
    add(cases, OpId::concat, dtype,
        {values({2, 3}, dtype, false), values({2, 1}, dtype, true), values({2, 4}, dtype, false)},
        [](const auto& x) { return ops::concat(x, 1); });
    add(cases, OpId::pad, dtype, {values({2, 3}, dtype, false)}, [](const auto& x) {
      return ops::pad(x[0], {{1, 2}, {0, 3}}, 1.5);
    });
  }
  for (const DType dtype : kFloating)
    add(cases, OpId::strided_slice_grad, dtype, {values({2, 3}, dtype, false)}, [](const auto& x) {
      return apply(OpId::strided_slice_grad, {x[0]},
                   {{"begin", std::vector<int64_t>{1, kSliceEnd}},
                    {"end", std::vector<int64_t>{kSliceEnd, 0}},
                    {"strides", std::vector<int64_t>{2, -2}},
                    {"input_shape", std::vector<int64_t>{5, 6}}});
    });
}

void index_cases(std::vector<ParityCase>& cases) {
  for (const DType dtype : kAll)
    for (const DType index : {DType::i32, DType::i64}) {
      const Tensor rows = from_vector(std::vector<double>{4, 0, 2, 2, 1, 3}, {2, 3}, index);
      add(cases, OpId::gather, dtype, {values({5, 3}, dtype, false), rows},
          [](const auto& x) { return ops::gather(x[0], x[1], 0); });
      const Tensor columns = from_vector(std::vector<double>{2, 0, 2}, {3}, index);
      add(cases, OpId::gather, dtype, {values({5, 3}, dtype, false), columns},
          [](const auto& x) { return ops::gather(x[0], x[1], 1); });
    }
  // Repeated indices add into the same row.
  for (const DType dtype : kNumeric)
    add(cases, OpId::scatter_add, dtype,
        {values({5, 3}, dtype, true), from_vector(std::vector<int64_t>{1, 3, 1, 0}, {4}),
         values({4, 3}, dtype, true)},
        [](const auto& x) { return ops::scatter_add(x[0], x[1], x[2], 0); });
  add(cases, OpId::range_like, DType::f32, {values({3, 7}, DType::f32, false)},
      [](const auto& x) { return ops::range_like(x[0], 1); });
}

// rnn_sequence over every cell (kiln's GRU is Keras's reset_after=True, its only form), forward
// and reversed, with masked steps (one row shorter, one padded on the left), recurrent dropout,
// one initial state shared by every sequence, and the other activations; gradients through
// rnn_sequence_grad. rnn_sequence_grad also runs on its own, on the gradient of slices of the
// record (what the graph pass over sliced record gradients hands it). Inputs are multiples of
// 1/32 of magnitude at most 0.375, so the gates stay out of saturation and their derivatives
// matter.
void rnn_cases(std::vector<ParityCase>& cases) {
  using rnn::Activation;
  using rnn::Cell;
  constexpr int64_t kBatch = 3, kTime = 5, kUnits = 4;
  struct Variant {
    Cell cell;
    std::string name;
    bool reverse = false;
    bool masked = false;
    bool dropout = false;
    bool shared_states = false;
    Activation activation = Activation::tanh;
  };
  const std::vector<Variant> variants{
      {Cell::lstm, "lstm"},
      {Cell::lstm, "lstm reversed masked", true, true},
      {Cell::lstm, "lstm masked dropout shared states", false, true, true, true},
      {Cell::lstm, "lstm reversed linear", true, false, false, false, Activation::linear},
      {Cell::gru, "gru"},
      {Cell::gru, "gru reversed masked", true, true},
      {Cell::gru, "gru masked dropout shared states", false, true, true, true},
      {Cell::simple, "simple"},
      {Cell::simple, "simple reversed masked", true, true},
      {Cell::simple, "simple masked dropout relu", false, true, true, false, Activation::relu},
  };
  const std::vector<double> keep{1, 1, 1, 1, 1, /**/ 1, 1, 1, 0, 0, /**/ 0, 0, 1, 1, 1};
  const std::vector<double> drop{1.25, 0, 1.25, 1.25, 0, 1.25, 1.25, 1.25, 1.25, 1.25, 0, 1.25};
  const Tensor mask = from_vector(keep, {kBatch, kTime}, DType::boolean);
  for (const DType dtype : {DType::f32, DType::f64}) {
    const auto small = [dtype](const Shape& shape) { return values(shape, dtype, false) * 0.125; };
    const Tensor dropout = from_vector(drop, {kBatch, kUnits}, dtype);
    // Inputs: projected, initial states, recurrent kernel[, recurrent bias][, mask]. The dropout
    // mask is a constant of the case, on the device of the inputs.
    const auto inputs_of = [&](const Variant& v) {
      const rnn::CellLayout layout{v.cell, kUnits};
      const int64_t width = layout.gates() * kUnits;
      std::vector<Tensor> in{small({kBatch, kTime, width}),
                             small({v.shared_states ? 1 : kBatch, layout.states(), kUnits}),
                             small({kUnits, width})};
      if (v.cell == Cell::gru) in.push_back(small({width}));
      if (v.masked) in.push_back(mask);
      return in;
    };
    const auto record_of = [dropout](const Variant& v, const std::vector<Tensor>& x) {
      ops::RnnSequenceArgs args{.cell = v.cell, .activation = v.activation, .reverse = v.reverse};
      size_t next = 3;
      if (v.cell == Cell::gru) args.recurrent_bias = x[next++];
      if (v.masked) args.mask = x[next++];
      if (v.dropout) args.recurrent_dropout = dropout.to(x[0].device());
      return ops::rnn_sequence(x[0], x[1], x[2], args);
    };
    for (const Variant& v : variants) {
      add(cases, OpId::rnn_sequence, dtype, inputs_of(v),
          [v, record_of](const auto& x) { return record_of(v, x); });
      cases.back().label += " " + v.name;
    }
    // rnn_sequence_grad given the gradient of record[:, rows, columns] only; the incoming
    // gradient is the last input.
    struct Slice {
      size_t variant;
      std::vector<int64_t> begin, end;  // rows, then columns
      int64_t rows, columns;            // the slice's extent
      bool initial_grad;
    };
    const std::vector<Slice> slices{
        {1, {0, 0}, {kSliceEnd, kSliceEnd}, kTime + 1, 6 * kUnits, true},  // all of it
        {2, {0, kUnits}, {3, 2 * kUnits}, 3, kUnits, true},                // c of the first rows
        {5, {-1, 0}, {kSliceEnd, kUnits}, 1, kUnits, false},               // the last h
        {9, {1, 0}, {kSliceEnd, kUnits}, kTime, kUnits, true},             // every step's h
    };
    for (const Slice& s : slices) {
      const Variant& v = variants[s.variant];
      std::vector<Tensor> in = inputs_of(v);
      in.push_back(small({kBatch, s.rows, s.columns}));
      add(cases, OpId::rnn_sequence_grad, dtype, std::move(in),
          [v, s, record_of, dropout](const auto& x) {
            std::vector<Tensor> operands{record_of(v, x), x.back(), x[2]};
            if (v.masked) operands.push_back(x[x.size() - 2]);
            if (v.dropout) operands.push_back(dropout.to(x[0].device()));
            Attrs attrs{{"cell", static_cast<int64_t>(v.cell)},
                        {"activation", static_cast<int64_t>(v.activation)},
                        {"recurrent_activation", static_cast<int64_t>(Activation::sigmoid)},
                        {"reverse", v.reverse},
                        {"has_mask", v.masked},
                        {"has_dropout", v.dropout},
                        {"initial_grad", s.initial_grad},
                        {"d_begin", s.begin},
                        {"d_end", s.end}};
            return apply(OpId::rnn_sequence_grad, std::move(operands), std::move(attrs));
          });
      cases.back().label += " " + v.name;
    }
  }
}

void matmul_cases(std::vector<ParityCase>& cases) {
  struct Product {
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<Product> products{
      {{17, 33}, {33, 9}, false, false},       {{33, 17}, {33, 9}, true, false},
      {{17, 33}, {9, 33}, false, true},        {{33, 17}, {9, 33}, true, true},
      {{3, 17, 33}, {3, 33, 9}, false, false}, {{3, 33, 17}, {33, 9}, true, false},
      {{17, 33}, {2, 3, 9, 33}, false, true},  {{1, 17, 33}, {4, 33, 9}, false, false},
  };
  // Products and sums of multiples of 1/4 are exact in float32, so the order of summation does
  // not matter and the results match to the final rounding.
  for (const DType dtype : kFloating)
    for (const Product& p : products)
      add(cases, OpId::matmul, dtype, {values(p.a, dtype, false), values(p.b, dtype, false)},
          [p](const auto& x) { return ops::matmul(x[0], x[1], p.ta, p.tb); });
}

}  // namespace

std::vector<ParityCase> parity_cases() {
  std::vector<ParityCase> cases;
  unary_cases(cases);
  binary_cases(cases);
  other_cases(cases);
  reduction_cases(cases);
  data_movement_cases(cases);
  index_cases(cases);
  rnn_cases(cases);
  matmul_cases(cases);
  return cases;
}

}  // namespace kiln::testing
