// rnn_sequence against the same recurrence written step by step with primitive ops, its gradient
// against finite differences, masked steps and reversed sequences (traces over unknown lengths:
// tests/engine/unknown_length_test.cpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <string>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/backends/cpu/cpu_isa.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "tests/framework/gradcheck.h"

namespace kiln {
namespace {

using rnn::Activation;
using rnn::Cell;
using testing::random_f64;

constexpr int64_t kBatch = 3, kTime = 4, kUnits = 3;

struct Variant {
  Cell cell;
  bool reverse = false;
  bool masked = false;
  bool dropout = false;
  Activation activation = Activation::tanh;
  bool shared_states = false;  // one initial state of batch 1 for every sequence

  std::string name() const {
    const char* cells[] = {"simple", "gru", "lstm"};
    return std::string(cells[static_cast<int>(cell)]) + (reverse ? " reversed" : "") +
           (masked ? " masked" : "") + (dropout ? " dropout" : "") +
           (shared_states ? " shared states" : "");
  }
  rnn::CellLayout layout() const { return {cell, kUnits}; }
};

std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (Cell cell : {Cell::simple, Cell::gru, Cell::lstm}) {
    out.push_back({cell});
    out.push_back({cell, true, true});
    out.push_back({cell, false, true, true});
  }
  out.push_back({Cell::simple, false, false, false, Activation::sigmoid});
  out.push_back({Cell::lstm, true, false, false, Activation::linear});
  out.push_back({Cell::lstm, false, true, false, Activation::tanh, true});
  return out;
}

// Row b keeps its first lengths[b] steps (right padding), except row 2 which is left-padded.
Tensor make_mask() {
  const std::vector<float> keep = {1, 1, 1, 1, /**/ 1, 1, 0, 0, /**/ 0, 1, 1, 1};
  return ops::greater(from_vector(keep, {kBatch, kTime}), 0.5);
}

struct Operands {
  Tensor projected, states, kernel, recurrent_bias, mask, dropout;
};

Operands operands(const Variant& v, DType dtype) {
  const rnn::CellLayout l = v.layout();
  const int64_t width = l.gates() * kUnits;
  Operands o{random_f64({kBatch, kTime, width}, -1, 1, 1),
             random_f64({v.shared_states ? 1 : kBatch, l.states(), kUnits}, -0.5, 0.5, 2),
             random_f64({kUnits, width}, -0.6, 0.6, 3)};
  if (v.cell == Cell::gru) o.recurrent_bias = random_f64({width}, -0.3, 0.3, 4);
  if (v.masked) o.mask = make_mask();
  if (v.dropout)
    o.dropout =
        ops::cast(ops::greater(random_f64({kBatch, kUnits}, 0, 1, 5), 0.3), DType::f64) * (1 / 0.7);
  for (Tensor* t : {&o.projected, &o.states, &o.kernel, &o.recurrent_bias, &o.dropout})
    if (t->defined()) *t = ops::cast(*t, dtype);
  return o;
}

ops::RnnSequenceArgs args_of(const Variant& v, const Operands& o) {
  return {v.cell, v.activation, Activation::sigmoid, v.reverse, o.recurrent_bias,
          o.mask, o.dropout};
}

Tensor apply_activation(Activation a, const Tensor& x) {
  switch (a) {
    case Activation::tanh:
      return ops::tanh(x);
    case Activation::sigmoid:
      return ops::sigmoid(x);
    case Activation::relu:
      return ops::relu(x);
    case Activation::linear:
      return x;
  }
  return x;
}

Tensor block(const Tensor& x, int64_t k) {
  return ops::slice(x, {0, k * kUnits}, {-1, kUnits});
}

// The states after every step ([batch, time + 1, states * units]), one op at a time.
Tensor step_by_step(const Variant& v, const Operands& o) {
  const DType dt = o.projected.dtype();
  auto initial = [&](int64_t k) {
    return ops::broadcast_to(
        ops::reshape(ops::slice(o.states, {0, k, 0}, {-1, 1, -1}), {-1, kUnits}), {kBatch, kUnits});
  };
  Tensor h = initial(0);
  Tensor c = v.cell == Cell::lstm ? initial(1) : Tensor();
  auto row = [&] { return c.defined() ? ops::concat({h, c}, 1) : h; };
  std::vector<Tensor> rows{row()};
  for (int64_t s = 0; s < kTime; ++s) {
    const int64_t t = v.reverse ? kTime - 1 - s : s;
    const Tensor x = ops::reshape(ops::slice(o.projected, {0, t, 0}, {-1, 1, -1}), {kBatch, -1});
    const Tensor p = ops::matmul(o.dropout.defined() ? h * o.dropout : h, o.kernel);
    Tensor h_new, c_new;
    const Activation ra = Activation::sigmoid;
    if (v.cell == Cell::simple) {
      h_new = apply_activation(v.activation, x + p);
    } else if (v.cell == Cell::lstm) {
      const Tensor z = x + p;
      const Tensor i = apply_activation(ra, block(z, 0)), f = apply_activation(ra, block(z, 1));
      const Tensor g = apply_activation(v.activation, block(z, 2));
      const Tensor out = apply_activation(ra, block(z, 3));
      c_new = f * c + i * g;
      h_new = out * apply_activation(v.activation, c_new);
    } else {
      const Tensor rec = p + o.recurrent_bias;
      const Tensor z = apply_activation(ra, block(x, 0) + block(rec, 0));
      const Tensor r = apply_activation(ra, block(x, 1) + block(rec, 1));
      const Tensor hh = apply_activation(v.activation, block(x, 2) + r * block(rec, 2));
      h_new = z * h + (1.0 - z) * hh;
    }
    if (o.mask.defined()) {
      const Tensor keep =
          ops::cast(ops::reshape(ops::slice(o.mask, {0, t}, {-1, 1}), {kBatch, 1}), dt);
      h_new = keep * h_new + (1.0 - keep) * h;
      if (c.defined()) c_new = keep * c_new + (1.0 - keep) * c;
    }
    h = h_new;
    c = c_new;
    rows.push_back(row());
  }
  return ops::stack(rows, 1);
}

// The record's state columns: the part of it that is the op's result.
Tensor states_of(const Variant& v, const Tensor& record) {
  return ops::slice(record, {0, 0, 0}, {-1, -1, v.layout().states() * kUnits});
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << " element " << i;
}

TEST(RnnSequence, MatchesTheRecurrenceStepByStep) {
  for (const Variant& v : variants()) {
    for (DType dt : {DType::f64, DType::f32}) {
      SCOPED_TRACE(v.name() + " " + std::string(dtype_name(dt)));
      const Operands o = operands(v, dt);
      const Tensor record = ops::rnn_sequence(o.projected, o.states, o.kernel, args_of(v, o));
      ASSERT_EQ(record.shape(), (Shape{kBatch, kTime + 1, v.layout().record_width()}));
      expect_close(states_of(v, record), step_by_step(v, o), dt == DType::f64 ? 1e-12 : 2e-6,
                   "states");
    }
  }
}

TEST(RnnSequence, GradientsMatchFiniteDifferences) {
  for (const Variant& v : variants()) {
    SCOPED_TRACE(v.name());
    const Operands o = operands(v, DType::f64);
    std::vector<Tensor> xs{o.projected, o.states, o.kernel};
    if (o.recurrent_bias.defined()) xs.push_back(o.recurrent_bias);
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) {
          Operands with = o;
          with.projected = in[0];
          with.states = in[1];
          with.kernel = in[2];
          if (in.size() > 3) with.recurrent_bias = in[3];
          return states_of(v, ops::rnn_sequence(in[0], in[1], in[2], args_of(v, with)));
        },
        xs);
  }
}

// With constant initial states the backward op leaves out their gradient's row; the others
// must not move.
TEST(RnnSequence, GradientsWithoutTheInitialStatesMatchFiniteDifferences) {
  for (const Variant& v : variants()) {
    SCOPED_TRACE(v.name());
    const Operands o = operands(v, DType::f64);
    testing::expect_gradients_match(
        [&](const std::vector<Tensor>& in) {
          Operands with = o;
          with.projected = in[0];
          with.kernel = in[1];
          return states_of(v, ops::rnn_sequence(in[0], o.states, in[1], args_of(v, with)));
        },
        {o.projected, o.kernel});
  }
}

TEST(RnnSequence, MaskedStepsCarryTheStatesThrough) {
  const Variant v{Cell::lstm, false, true};
  const Operands o = operands(v, DType::f32);
  const auto r = states_of(v, ops::rnn_sequence(o.projected, o.states, o.kernel, args_of(v, o)));
  const auto row = [&](int64_t b, int64_t s) {
    return ops::slice(r, {b, s, 0}, {1, 1, -1}).to_vector<float>();
  };
  // Row 1 keeps steps 0 and 1 only; row 2 skips step 0.
  EXPECT_EQ(row(1, 2), row(1, 3));
  EXPECT_EQ(row(1, 2), row(1, 4));
  EXPECT_EQ(row(2, 0), row(2, 1));
  EXPECT_NE(row(2, 1), row(2, 2));
}

// rnn_sequence's record and the gradients of sum(record * weights) for projected, states and
// kernel: every value the forward and backward kernels write.
std::vector<Tensor> record_and_gradients(const Tensor& projected, const Tensor& states,
                                         const Tensor& kernel, const Tensor& weights,
                                         const ops::RnnSequenceArgs& args) {
  std::vector<Tensor> out = grad(
      [&](const std::vector<Tensor>& in) {
        return ops::sum(ops::rnn_sequence(in[0], in[1], in[2], args) * weights);
      },
      {projected, states, kernel});
  out.push_back(ops::rnn_sequence(projected, states, kernel, args));
  return out;
}

// The cell loops are compiled once per instruction set level (without FMA contraction): every
// level the processor has gives the baseline's record and gradients bit for bit, on sizes whose
// rows fill whole vectors and leave remainders.
TEST(RnnSequence, EveryInstructionSetLevelGivesTheSameBits) {
  constexpr int64_t batch = 5, time = 6, units = 37;
  for (Cell cell : {Cell::simple, Cell::gru, Cell::lstm}) {
    const rnn::CellLayout l{cell, units};
    const int64_t width = l.gates() * units;
    const Tensor projected = ops::cast(random_f64({batch, time, width}, -1, 1, 1), DType::f32);
    const Tensor states = ops::cast(random_f64({batch, l.states(), units}, -1, 1, 2), DType::f32);
    const Tensor kernel = ops::cast(random_f64({units, width}, -0.3, 0.3, 3), DType::f32);
    const Tensor bias = ops::cast(random_f64({width}, -0.3, 0.3, 4), DType::f32);
    const Tensor weights =
        ops::cast(random_f64({batch, time + 1, l.record_width()}, -1, 1, 5), DType::f32);
    const ops::RnnSequenceArgs args{
        cell,     Activation::tanh, Activation::sigmoid, false, cell == Cell::gru ? bias : Tensor(),
        Tensor(), Tensor()};
    const auto run = [&] { return record_and_gradients(projected, states, kernel, weights, args); };
    const cpu::CpuIsa saved = cpu::cpu_isa();
    cpu::set_cpu_isa(cpu::CpuIsa::sse2);
    const std::vector<Tensor> baseline = run();
    for (cpu::CpuIsa isa : {cpu::CpuIsa::avx2, cpu::CpuIsa::avx512}) {
      if (isa > cpu::detected_cpu_isa()) break;
      cpu::set_cpu_isa(isa);
      const std::vector<Tensor> got = run();
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_EQ(got[k].to_vector<float>(), baseline[k].to_vector<float>())
            << cpu::cpu_isa_name(isa) << " cell " << static_cast<int>(cell) << " output " << k;
    }
    cpu::set_cpu_isa(saved);
  }
}

// Each thread steps its own block of batch rows through the sequence, running the same matmul
// primitive as the other threads at the same time: the result must be the one-thread result.
TEST(RnnSequence, RowBlocksOnSeveralThreadsMatchOneThread) {
  const int threads = omp_get_max_threads();
  if (threads < 2) GTEST_SKIP() << "needs 2 threads";
  constexpr int64_t batch = 8, time = 30, units = 40;
  const rnn::CellLayout l{Cell::lstm, units};
  const Tensor projected =
      ops::cast(random_f64({batch, time, l.gates() * units}, -1, 1, 1), DType::f32);
  const Tensor states = ops::cast(random_f64({batch, l.states(), units}, -1, 1, 2), DType::f32);
  const Tensor kernel = ops::cast(random_f64({units, l.gates() * units}, -0.3, 0.3, 3), DType::f32);
  const Tensor weights =
      ops::cast(random_f64({batch, time + 1, l.record_width()}, -1, 1, 5), DType::f32);
  // Every other row ends early, so the blocks also compact different rows.
  std::vector<float> keep(static_cast<size_t>(batch * time), 1);
  for (int64_t b = 1; b < batch; b += 2)
    for (int64_t t = time - 3 * b; t < time; ++t) keep[static_cast<size_t>(b * time + t)] = 0;
  const ops::RnnSequenceArgs args{
      Cell::lstm, Activation::tanh, Activation::sigmoid,
      false,      Tensor(),         ops::greater(from_vector(keep, {batch, time}), 0.5),
      Tensor()};
  const auto run = [&] { return record_and_gradients(projected, states, kernel, weights, args); };
  const std::vector<Tensor> several = run();
  omp_set_num_threads(1);
  const std::vector<Tensor> one = run();
  omp_set_num_threads(threads);
  for (size_t k = 0; k < one.size(); ++k) expect_close(several[k], one[k], 1e-6, "output");
}

TEST(RnnSequence, ErrorsNameTheOperand) {
  const Variant v{Cell::lstm};
  const Operands o = operands(v, DType::f32);
  try {
    ops::rnn_sequence(o.projected, ops::slice(o.states, {0, 0, 0}, {-1, 1, -1}), o.kernel,
                      args_of(v, o));
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("initial_states must be [batch, 2, 3]"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln
