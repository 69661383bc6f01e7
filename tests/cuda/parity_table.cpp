#include "tests/cuda/parity_table.h"

#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "kiln/engine/function/function.h"
#include "kiln/framework/graph/fused_program.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/elementwise_functor_list.h"
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
  // A case per row of unary_op_rows.h (attributes at their defaults), then attributes away
  // from them.
  std::vector<Unary> ops{
#define KILN_PARITY_ROW(X, op, F, dtypes, domain, ...)                \
  {OpId::op, [](const auto& x) { return ops::op(x[0]); }, &k##dtypes, \
   positive_inputs(InputDomain::domain)},
      KILN_UNARY_OP_ROWS(KILN_PARITY_ROW, KILN_PARITY_ROW, _)
#undef KILN_PARITY_ROW
          {OpId::leaky_relu, [](const auto& x) { return ops::leaky_relu(x[0], 0.2); }, &kFloating,
           false},
      {OpId::elu, [](const auto& x) { return ops::elu(x[0], 0.7); }, &kFloating, false},
      {OpId::gelu, [](const auto& x) { return ops::gelu(x[0], true); }, &kFloating, false},
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
  // One rank: an all-reduce gives its input back, through either device's start and wait
  // kernels (a device tensor goes through a host copy).
  for (const OpId op : {OpId::all_reduce_start, OpId::all_reduce_wait})
    for (const DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64})
      add(cases, op, dtype, {values({3, 17}, dtype, false)},
          [](const auto& x) { return ops::all_reduce(x[0]); });
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
  // Few and long: reduced in parts, then the parts' results (multiples of 1/4 add exactly).
  for (const DType dtype : {DType::f32, DType::f64, DType::i64}) {
    add(cases, OpId::reduce_sum, dtype, {values({3, 20000}, dtype, false)},
        [](const auto& x) { return ops::sum(x[0], {1}); });
    add(cases, OpId::reduce_sum, dtype, {values({200, 300}, dtype, false)},
        [](const auto& x) { return ops::sum(x[0]); });
    add(cases, OpId::reduce_min, dtype, {values({20001}, dtype, false)},
        [](const auto& x) { return ops::min(x[0]); });
  }
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
  // Runs longer than the loads the CUDA kernel keeps in flight, under an outer axis, with a row
  // no index names; then runs of several of its chunks (summed chunk by chunk, which rounds
  // differently from the CPU's one chain in 16 bits, but not for these sums of quarters in 32).
  for (const int64_t n : {37, 300}) {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (size_t j = 0; j < rows.size(); ++j) rows[j] = j % 3 == 1 ? 0 : 2;
    for (const DType dtype : kNumeric) {
      if (n > 64 && (dtype == DType::f16 || dtype == DType::bf16)) continue;
      add(cases, OpId::scatter_add, dtype,
          {values({2, 3, 4}, dtype, true), from_vector(rows, {n}), values({2, n, 4}, dtype, true)},
          [](const auto& x) { return ops::scatter_add(x[0], x[1], x[2], 1); });
    }
  }
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

// Convolutions and pools over odd sizes, strides of 2, dilation, groups (depthwise too) and both
// paddings. Over most of these sizes "same" pads one row or column more after than before,
// which the CUDA kernels build around cuDNN's symmetric padding.
void conv_pool_cases(std::vector<ParityCase>& cases) {
  struct Conv {
    Shape x, kernel;
    std::vector<int64_t> strides, dilation;
    bool same;
    int64_t groups;
  };
  const std::vector<Conv> convs{
      {{2, 7, 9, 3}, {3, 3, 3, 5}, {1, 1}, {1, 1}, true, 1},    // "same", symmetric
      {{2, 8, 6, 4}, {3, 3, 4, 6}, {2, 2}, {1, 1}, true, 1},    // one more row and column after
      {{1, 9, 7, 2}, {2, 4, 2, 3}, {2, 1}, {1, 1}, true, 1},    // even kernel sizes
      {{2, 9, 10, 3}, {3, 3, 3, 4}, {1, 2}, {2, 1}, false, 1},  // dilation; a column left over
      {{1, 10, 9, 4}, {3, 3, 2, 6}, {2, 2}, {2, 2}, true, 2},   // groups with dilation
      {{2, 6, 7, 4}, {3, 3, 1, 4}, {1, 1}, {1, 1}, true, 4},    // depthwise
      {{2, 5, 5, 8}, {1, 1, 8, 3}, {2, 2}, {1, 1}, false, 1},   // 1x1 with stride 2
  };
  for (const Conv& v : convs) {
    const Attrs attrs{
        {"strides", v.strides}, {"dilation", v.dilation}, {"same", v.same}, {"groups", v.groups}};
    const ops::Padding padding = v.same ? ops::Padding::same : ops::Padding::valid;
    Attrs input_attrs = attrs, filter_attrs = attrs, relu_attrs = attrs, bias_attrs = attrs;
    input_attrs.set("input_shape", v.x.dims());
    filter_attrs.set("filter_shape", v.kernel.dims());
    relu_attrs.set("relu", true);
    bias_attrs.set("relu", false);
    for (const DType dtype : kFloating) {
      const Tensor x = values(v.x, dtype, false);
      const Tensor kernel = values(v.kernel, dtype, false);
      const Tensor grad = values(
          ops::conv2d(x, kernel, v.strides, padding, v.dilation, v.groups).shape(), dtype, false);
      add(cases, OpId::conv2d, dtype, {x, kernel}, [v, padding](const auto& in) {
        return ops::conv2d(in[0], in[1], v.strides, padding, v.dilation, v.groups);
      });
      add(cases, OpId::conv2d_backprop_input, dtype, {grad, kernel}, [input_attrs](const auto& in) {
        return apply(OpId::conv2d_backprop_input, {in[0], in[1]}, input_attrs);
      });
      add(cases, OpId::conv2d_backprop_filter, dtype, {x, grad}, [filter_attrs](const auto& in) {
        return apply(OpId::conv2d_backprop_filter, {in[0], in[1]}, filter_attrs);
      });
      for (const Attrs& fused : {bias_attrs, relu_attrs})
        add(cases, OpId::conv2d_bias_activation, dtype,
            {x, kernel, values({v.kernel[3]}, dtype, false)}, [fused](const auto& in) {
              return apply(OpId::conv2d_bias_activation, {in[0], in[1], in[2]}, fused);
            });
    }
  }

  struct Pool {
    Shape x;
    std::vector<int64_t> size, strides;
    bool same;
  };
  const std::vector<Pool> pools{
      {{2, 7, 9, 3}, {2, 2}, {2, 2}, false},  // tiling windows, a row and a column left over
      {{2, 8, 9, 3}, {3, 3}, {2, 2}, true},   // "same": one more row after than before
      {{1, 6, 7, 4}, {3, 2}, {1, 1}, true},   // overlapping; one more column after
      {{2, 9, 8, 2}, {3, 3}, {2, 1}, false},  // overlapping windows
      {{1, 5, 5, 3}, {5, 5}, {5, 5}, false},  // one window over the whole image
      {{1, 4, 6, 2}, {2, 3}, {1, 2}, true},   // rectangular windows
  };
  for (const Pool& p : pools) {
    const Attrs attrs{{"pool_size", p.size}, {"strides", p.strides}, {"same", p.same}};
    const ops::Padding padding = p.same ? ops::Padding::same : ops::Padding::valid;
    Attrs avg_grad_attrs = attrs, argmax_grad_attrs = attrs;
    avg_grad_attrs.set("input_shape", p.x.dims());
    argmax_grad_attrs.set("input_hw", std::vector<int64_t>{p.x[1], p.x[2]});
    for (const DType dtype : kFloating) {
      // The values repeat, so windows hold ties: the first maximum in scan order wins on both.
      const Tensor x = values(p.x, dtype, false);
      const Tensor grad =
          values(ops::max_pool2d(x, p.size, p.strides, padding).shape(), dtype, false);
      add(cases, OpId::max_pool2d, dtype, {x}, [p, padding](const auto& in) {
        return ops::max_pool2d(in[0], p.size, p.strides, padding);
      });
      add(cases, OpId::avg_pool2d, dtype, {x}, [p, padding](const auto& in) {
        return ops::avg_pool2d(in[0], p.size, p.strides, padding);
      });
      add(cases, OpId::max_pool2d_grad, dtype, {x, grad}, [attrs](const auto& in) {
        return apply(OpId::max_pool2d_grad, {in[0], in[1]}, attrs);
      });
      add(cases, OpId::avg_pool2d_grad, dtype, {grad}, [avg_grad_attrs](const auto& in) {
        return apply(OpId::avg_pool2d_grad, {in[0]}, avg_grad_attrs);
      });
      // The pooled values, then the window positions, which must be equal.
      for (const size_t output : {size_t{0}, size_t{1}})
        add(cases, OpId::max_pool2d_with_argmax, dtype, {x}, [attrs, output](const auto& in) {
          return apply_multi(OpId::max_pool2d_with_argmax, {in[0]}, attrs)[output];
        });
      // From the CPU's positions, so this case does not depend on the GPU's.
      const Tensor argmax = apply_multi(OpId::max_pool2d_with_argmax, {x}, attrs)[1];
      add(cases, OpId::max_pool2d_grad_from_argmax, dtype, {argmax, grad},
          [argmax_grad_attrs](const auto& in) {
            return apply(OpId::max_pool2d_grad_from_argmax, {in[0], in[1]}, argmax_grad_attrs);
          });
    }
  }
}

// fused_elementwise runs only inside traced graphs. Its cases run the kernel on programs as the
// fusion pass writes them (every op; inputs of the output's shape, broadcast rows and columns,
// scalars, bool masks; bool outputs; both compute types), and one traced chain goes through the
// pass itself.
Tensor run_fused(const FusedProgram& program, const std::vector<Tensor>& inputs, const Shape& shape,
                 DType dtype) {
  const Tensor out = Tensor::empty(shape, dtype, inputs[0].device());
  const Attrs attrs{{"dtype", dtype}};
  op_def(OpId::fused_elementwise)
      .kernels[static_cast<size_t>(out.device().type)](KernelContext{inputs, out, attrs, &program});
  return out;
}

// Appends an instruction; returns the register it writes.
int emit(FusedProgram& program, OpId op, std::vector<int> operands, Attrs attrs = {}) {
  program.instructions.push_back({op, std::move(attrs), std::move(operands)});
  return program.num_inputs + static_cast<int>(program.instructions.size()) - 1;
}

void add_fused(std::vector<ParityCase>& cases, std::shared_ptr<const FusedProgram> program,
               std::vector<Tensor> inputs, const Shape& shape, DType dtype) {
  std::ostringstream name;
  name << "fused_elementwise " << program->describe() << " -> " << dtype_name(dtype) << shape;
  Fn fn = [program, shape, dtype](const std::vector<Tensor>& x) {
    return run_fused(*program, x, shape, dtype);
  };
  cases.push_back({OpId::fused_elementwise, name.str(), std::move(inputs), std::move(fn)});
}

// The attributes of the unary ops that take some.
Attrs attrs_of(OpId op) {
  if (op == OpId::leaky_relu || op == OpId::elu) return {{"alpha", 0.3}};
  if (op == OpId::gelu) return {{"approximate", true}};
  return {};
}

void fused_cases(std::vector<ParityCase>& cases) {
  for (const DType dtype : {DType::f32, DType::f64}) {
    // Every op once, over positive values (log's and sqrt's domain), summed: x0 of the output's
    // shape, x1 a row, x2 a scalar, x3 a bool mask.
    auto every_op = std::make_shared<FusedProgram>();
    every_op->num_inputs = 4;
    every_op->compute_dtype = dtype;
    std::vector<int> results;
#define KILN_FUSED_UNARY(op, F) \
  results.push_back(emit(*every_op, OpId::op, {0}, attrs_of(OpId::op)));
#define KILN_FUSED_BINARY(op, F) results.push_back(emit(*every_op, OpId::op, {0, 1}));
    KILN_UNARY_FUNCTORS(KILN_FUSED_UNARY)
    KILN_BINARY_FUNCTORS(KILN_FUSED_BINARY)
#undef KILN_FUSED_BINARY
#undef KILN_FUSED_UNARY
    results.push_back(emit(*every_op, OpId::where, {3, 0, 2}));
    results.push_back(emit(*every_op, OpId::cast, {1}, {{"dtype", DType::boolean}}));
    results.push_back(emit(*every_op, OpId::cast, {2}, {{"dtype", dtype}}));
    int sum = results[0];
    for (size_t k = 1; k < results.size(); ++k) sum = emit(*every_op, OpId::add, {sum, results[k]});
    add_fused(cases, every_op,
              {values({4, 33}, dtype, true), values({33}, dtype, true), values({}, dtype, true),
               values({4, 33}, DType::boolean, false)},
              {4, 33}, dtype);

    // A dense layer's tail over many blocks of threads: a bias row, a column, a scalar and a
    // mask, through the activations with attributes.
    auto chain = std::make_shared<FusedProgram>();
    chain->num_inputs = 5;
    chain->compute_dtype = dtype;
    const int biased = emit(*chain, OpId::add, {emit(*chain, OpId::mul, {0, 1}), 2});
    const int centred = emit(*chain, OpId::sub, {emit(*chain, OpId::sigmoid, {biased}), 3});
    const int masked = emit(*chain, OpId::where, {4, centred, 3});
    const int elu = emit(*chain, OpId::elu, {masked}, {{"alpha", 0.5}});
    emit(*chain, OpId::leaky_relu, {emit(*chain, OpId::gelu, {elu}, {{"approximate", false}})},
         {{"alpha", 0.2}});
    add_fused(cases, chain,
              {values({130, 257}, dtype, false), values({257}, dtype, false),
               values({130, 1}, dtype, false), from_vector(std::vector<double>{0.5}, {}, dtype),
               values({130, 257}, DType::boolean, false)},
              {130, 257}, dtype);

    // Two inputs broadcasting along different dims of a rank-4 output.
    auto strided = std::make_shared<FusedProgram>();
    strided->num_inputs = 3;
    strided->compute_dtype = dtype;
    emit(*strided, OpId::tanh, {emit(*strided, OpId::mul, {emit(*strided, OpId::add, {0, 1}), 2})});
    add_fused(cases, strided,
              {values({2, 3, 4, 5}, dtype, false), values({3, 1, 5}, dtype, false),
               values({4, 1}, dtype, false)},
              {2, 3, 4, 5}, dtype);

    // Comparisons, logical ops and a cast to bool, into a bool output.
    auto flags = std::make_shared<FusedProgram>();
    flags->num_inputs = 3;
    flags->compute_dtype = dtype;
    const int above = emit(*flags, OpId::greater, {0, 1});
    const int kept = emit(*flags, OpId::logical_not, {emit(*flags, OpId::logical_and, {above, 2})});
    emit(*flags, OpId::logical_and,
         {kept,
          emit(*flags, OpId::cast, {emit(*flags, OpId::sign, {0})}, {{"dtype", DType::boolean}})});
    add_fused(cases, flags,
              {values({6, 7}, dtype, false), values({6, 1}, dtype, false),
               values({6, 7}, DType::boolean, false)},
              {6, 7}, DType::boolean);
  }
  // Through the fusion pass of a traced function, on the inputs' device.
  add(cases, OpId::fused_elementwise, DType::f32,
      {values({64, 33}, DType::f32, false), values({64, 33}, DType::f32, false),
       values({33}, DType::f32, false)},
      [](const std::vector<Tensor>& x) {
        auto traced = function([](const std::vector<Tensor>& v) {
          return ops::relu(v[0] * v[1] + v[2]) * ops::tanh(v[0]) + 0.5;
        });
        return traced(x);
      });
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
  // A Dense layer's product with its bias, with and without relu, on plain and folded rows.
  for (const DType dtype : kFloating)
    for (const Shape& x : {Shape{17, 33}, Shape{3, 17, 33}})
      for (const bool relu : {false, true})
        add(cases, OpId::matmul_bias_activation, dtype,
            {values(x, dtype, false), values({33, 9}, dtype, false), values({9}, dtype, false)},
            [relu](const auto& in) {
              return apply(OpId::matmul_bias_activation, {in[0], in[1], in[2]},
                           {{"transpose_a", false}, {"transpose_b", false}, {"relu", relu}});
            });
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
  conv_pool_cases(cases);
  fused_cases(cases);
  matmul_cases(cases);
  return cases;
}

}  // namespace kiln::testing
