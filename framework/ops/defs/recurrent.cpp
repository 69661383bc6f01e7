// rnn_sequence and its gradient op (layout in framework/ops/rnn_cell.h). The gradient op runs the
// steps backwards and returns the projections' gradients; the weight gradients are then two
// large matmuls over all steps at once, which run faster than one small matmul per step.
#include "kiln/framework/ops/defs/infer_helpers.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/rnn_operands.h"
#include "kiln/framework/ops/rnn_ops.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;
using rnn::Cell;
using rnn::CellLayout;
using rnn::RnnOperands;

// Batch dims agree where both are known.
void check_batch(const TensorMeta& m, int64_t batch, const char* what) {
  KILN_SHAPE_CHECK(batch < 0 || m.shape[0] < 0 || m.shape[0] == batch, what, " ", describe(m),
                   " does not match the batch of ", batch);
}

void check_operand(const TensorMeta& m, const TensorMeta& like, const char* what) {
  KILN_SHAPE_CHECK(m.dtype == like.dtype, what, " ", describe(m), " is not ",
                   dtype_name(like.dtype));
}

// Checks the recurrent kernel and the optional operands; returns the cell layout.
CellLayout check_common(std::span<const TensorMeta> in, const RnnOperands& at, int64_t batch,
                        int64_t time) {
  const TensorMeta& kernel = in[2];
  KILN_SHAPE_CHECK(kernel.shape.rank() == 2 && kernel.shape.is_fully_defined(),
                   "recurrent_kernel must be [units, gates * units], got ", describe(kernel));
  const CellLayout layout{at.cell, kernel.shape[0]};
  KILN_SHAPE_CHECK(kernel.shape[1] == layout.gates() * layout.units, "recurrent_kernel ",
                   describe(kernel), " needs ", layout.gates(), " x ", layout.units, " columns");
  if (at.recurrent_bias >= 0) {
    const TensorMeta& b = in[static_cast<size_t>(at.recurrent_bias)];
    check_operand(b, kernel, "recurrent_bias");
    KILN_SHAPE_CHECK(b.shape == Shape{kernel.shape[1]}, "recurrent_bias must be [", kernel.shape[1],
                     "], got ", describe(b));
  }
  if (at.mask >= 0) {
    const TensorMeta& m = in[static_cast<size_t>(at.mask)];
    KILN_SHAPE_CHECK(m.dtype == DType::boolean && m.shape.rank() == 2,
                     "mask must be bool [batch, time], got ", describe(m));
    check_batch(m, batch, "mask");
    KILN_SHAPE_CHECK(time < 0 || m.shape[1] < 0 || m.shape[1] == time, "mask ", describe(m),
                     " does not match the time length ", time);
  }
  if (at.dropout >= 0) {
    const TensorMeta& d = in[static_cast<size_t>(at.dropout)];
    check_operand(d, kernel, "recurrent_dropout");
    KILN_SHAPE_CHECK(d.shape.rank() == 2 && d.shape[1] == layout.units,
                     "recurrent_dropout must be [batch, ", layout.units, "], got ", describe(d));
    check_batch(d, batch, "recurrent_dropout");
  }
  return layout;
}

int64_t plus_one(int64_t dim) {
  return dim < 0 ? -1 : dim + 1;
}

// inputs: projected, initial_states, recurrent_kernel[, recurrent_bias][, mask][, dropout]
TensorMeta infer_rnn_sequence(std::span<const TensorMeta> in, const Attrs& attrs) {
  const RnnOperands at = RnnOperands::of_forward(attrs);
  KILN_SHAPE_CHECK(in.size() == static_cast<size_t>(at.count), "expects ", at.count,
                   " inputs, got ", in.size());
  const TensorMeta& x = in[0];
  KILN_SHAPE_CHECK(x.dtype == DType::f32 || x.dtype == DType::f64,
                   "runs in float32 or float64, got ", dtype_name(x.dtype));
  KILN_SHAPE_CHECK(x.shape.rank() == 3,
                   "projected input must be [batch, time, gates * units], got ", describe(x));
  const int64_t batch = x.shape[0];
  const CellLayout layout = check_common(in, at, batch, x.shape[1]);
  check_operand(in[2], x, "recurrent_kernel");
  KILN_SHAPE_CHECK(x.shape[2] < 0 || x.shape[2] == layout.gates() * layout.units,
                   "projected input ", describe(x), " needs ", layout.gates() * layout.units,
                   " features for ", layout.units, " units");
  const TensorMeta& s = in[1];
  check_operand(s, x, "initial_states");
  KILN_SHAPE_CHECK(
      s.shape.rank() == 3 && s.shape[1] == layout.states() && s.shape[2] == layout.units,
      "initial_states must be [batch, ", layout.states(), ", ", layout.units, "], got ",
      describe(s));
  // A batch of 1 serves every sequence (zero states need no per-sequence copy).
  if (s.shape[0] != 1) check_batch(s, batch, "initial_states");
  return {x.dtype, Shape{batch, plus_one(x.shape[1]), layout.record_width()}, x.device};
}

// inputs: record, d_record, recurrent_kernel[, mask][, dropout]; attrs d_begin and d_end
// (optional): d_record is the gradient of that slice of the record only.
TensorMeta infer_rnn_sequence_grad(std::span<const TensorMeta> in, const Attrs& attrs) {
  const RnnOperands at = RnnOperands::of_backward(attrs);
  KILN_SHAPE_CHECK(in.size() == static_cast<size_t>(at.count), "expects ", at.count,
                   " inputs, got ", in.size());
  const TensorMeta& record = in[0];
  KILN_SHAPE_CHECK(record.shape.rank() == 3, "record must be rank 3, got ", describe(record));
  const int64_t time = record.shape[1] < 0 ? -1 : record.shape[1] - 1;
  const CellLayout layout = check_common(in, at, record.shape[0], time);
  KILN_SHAPE_CHECK(record.shape[2] == layout.record_width(), "record ", describe(record),
                   " does not have the ", layout.record_width(), " columns of its cell");
  const Shape& d = in[1].shape;
  if (attrs.has(attr::d_begin)) {
    // Only the gradient of record[:, d_begin[0]:d_end[0], d_begin[1]:d_end[1]], the rest being
    // zero: what the graph pass over sliced record gradients passes instead of a full d_record.
    KILN_SHAPE_CHECK(d.rank() == 3 && in[1].dtype == record.dtype &&
                         (d[0] < 0 || record.shape[0] < 0 || d[0] == record.shape[0]),
                     "the incoming gradient ", describe(in[1]),
                     " does not match a slice of the record ", describe(record));
  } else {
    KILN_SHAPE_CHECK(d == record.shape && in[1].dtype == record.dtype, "the incoming gradient ",
                     describe(in[1]), " does not match the record ", describe(record));
  }
  // initial_grad: row 0 holds the initial states' gradient, the steps' follow; without it the
  // rows are the steps' alone (no slice needed to take them).
  const int64_t rows =
      attrs.get(attr::initial_grad) || record.shape[1] < 0 ? record.shape[1] : record.shape[1] - 1;
  return {record.dtype, Shape{record.shape[0], rows, layout.grad_width()}, record.device};
}

Tensor columns(const Tensor& x, int64_t begin, int64_t end) {
  return ops::strided_slice(x, {0, 0, begin}, {kSliceEnd, kSliceEnd, end}, {1, 1, 1});
}

Grads grad_rnn_sequence(const GradContext& c) {
  const RnnOperands at = RnnOperands::of_forward(c.attrs());
  const Tensor& kernel = c.input(2);
  const CellLayout layout{at.cell, kernel.dim(0)};
  const int64_t units = layout.units;
  const int64_t width = layout.gates() * units;
  std::vector<Tensor> in{c.output, c.grad, kernel};
  if (at.mask >= 0) in.push_back(c.input(static_cast<size_t>(at.mask)));
  const Tensor dropout = at.dropout >= 0 ? c.input(static_cast<size_t>(at.dropout)) : Tensor();
  if (dropout.defined()) in.push_back(dropout);
  Attrs attrs = c.attrs();
  attrs.set(attr::initial_grad, c.needs[1]);
  const Tensor g = apply(OpId::rnn_sequence_grad, in, attrs);

  Grads out(c.node.inputs.size());
  // The steps' projection gradients in time order, after row 0 with the initial states' when
  // those are needed.
  const Tensor steps =
      c.needs[1] ? ops::strided_slice(g, {0, 1}, {kSliceEnd, kSliceEnd}, {1, 1}) : g;
  const Tensor d_projected = at.cell == Cell::gru ? columns(steps, 0, width) : steps;
  const Tensor d_recurrent = at.cell == Cell::gru ? columns(steps, width, 2 * width) : steps;
  if (c.needs[0]) out[0] = d_projected;
  if (c.needs[1]) {
    const Tensor first =
        ops::strided_slice(g, {0, 0, 0}, {kSliceEnd, 1, layout.states() * units}, {1, 1, 1});
    out[1] = ops::sum_to_like(ops::reshape(first, {-1, layout.states(), units}), c.input(1));
  }
  if (c.needs[2]) {
    // The h each step read, in the time order of d_recurrent: record rows 0..T-1, reversed for
    // a reversed sequence.
    const bool reverse = c.attrs().get(attr::reverse);
    Tensor h_prev =
        reverse
            ? ops::strided_slice(c.output, {0, -2, 0}, {kSliceEnd, kSliceEnd, units}, {1, -1, 1})
            : ops::strided_slice(c.output, {0, 0, 0}, {kSliceEnd, -1, units}, {1, 1, 1});
    if (dropout.defined()) h_prev = h_prev * ops::expand_dims(dropout, 1);
    out[2] = ops::matmul(ops::reshape(h_prev, {-1, units}), ops::reshape(d_recurrent, {-1, width}),
                         true, false);
  }
  if (at.recurrent_bias >= 0 && c.needs[static_cast<size_t>(at.recurrent_bias)])
    out[static_cast<size_t>(at.recurrent_bias)] = ops::sum(d_recurrent, {0, 1});
  return out;
}

}  // namespace

void define_recurrent_ops(OpTable& t) {
  defs::def(t, OpId::rnn_sequence, "rnn_sequence", -1, infer_rnn_sequence, grad_rnn_sequence);
  defs::def(t, OpId::rnn_sequence_grad, "rnn_sequence_grad", -1, infer_rnn_sequence_grad, nullptr);
}

namespace ops {

Tensor rnn_sequence(const Tensor& projected, const Tensor& initial_states,
                    const Tensor& recurrent_kernel, const RnnSequenceArgs& args) {
  KILN_CHECK(args.recurrent_bias.defined() == (args.cell == rnn::Cell::gru),
             "kiln::ops::rnn_sequence: a recurrent_bias goes with the GRU cell and only with it");
  std::vector<Tensor> in{projected, initial_states, recurrent_kernel};
  if (args.recurrent_bias.defined()) in.push_back(args.recurrent_bias);
  if (args.mask.defined()) in.push_back(args.mask);
  if (args.recurrent_dropout.defined()) in.push_back(args.recurrent_dropout);
  return apply(OpId::rnn_sequence, in,
               {{attr::cell, static_cast<int64_t>(args.cell)},
                {attr::activation, static_cast<int64_t>(args.activation)},
                {attr::recurrent_activation, static_cast<int64_t>(args.recurrent_activation)},
                {attr::reverse, args.reverse},
                {attr::has_mask, args.mask.defined()},
                {attr::has_dropout, args.recurrent_dropout.defined()}});
}

}  // namespace ops
}  // namespace kiln
