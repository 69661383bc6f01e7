// rnn_sequence and rnn_sequence_grad (layouts in framework/ops/rnn_cell.h). Each step is one
// matmul for the recurrent projection (oneDNN's matmul against the kernel packed once per run for
// float32; a plain loop for float64, which only gradient checks use) and one pass over the gates.
// Each thread steps its own block of batch rows through the whole sequence. The scratch buffers
// are allocated once per run, never per step.
#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "kiln/framework/backends/cpu/cpu_kernels.h"
#include "kiln/framework/backends/cpu/fast_math.h"
#include "kiln/framework/backends/cpu/isa_dispatch.h"
#include "kiln/framework/backends/cpu/packed_matmul.h"
#include "kiln/framework/backends/cpu/parallel.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/rnn_operands.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln::cpu {
namespace {

using rnn::Activation;
using rnn::Cell;
using rnn::CellLayout;
using rnn::RnnOperands;

// out[m, n] = a[m, k] . kernel, a's rows lda apart, for one run's kernel ([k, n], or [n, k]
// when transposed): float32 through a PackedMatmul, float64 through a plain loop.
template <typename T>
class KernelProduct {
 public:
  KernelProduct(const T* kernel, int64_t k, int64_t n, bool transposed)
      : kernel_(kernel), k_(k), n_(n), transposed_(transposed) {
    if constexpr (std::is_same_v<T, float>) packed_.emplace(kernel, k, n, transposed);
  }

  void operator()(int64_t m, const T* a, int64_t lda, T* out) {
    if constexpr (std::is_same_v<T, float>) {
      packed_->run(m, a, lda, out);
    } else {
      for (int64_t i = 0; i < m; ++i) {
        T* row = out + i * n_;
        std::fill(row, row + n_, T(0));
        for (int64_t p = 0; p < k_; ++p)
          for (int64_t j = 0; j < n_; ++j)
            row[j] += a[i * lda + p] * (transposed_ ? kernel_[j * k_ + p] : kernel_[p * n_ + j]);
      }
    }
  }

 private:
  const T* kernel_;
  int64_t k_, n_;
  bool transposed_;
  std::optional<PackedMatmul> packed_;
};

// y = f(y) over n values; the switch sits outside the loops so each loop vectorizes.
template <typename T>
void activate(Activation f, T* y, int64_t n) {
  switch (f) {
    case Activation::tanh:
      for (int64_t i = 0; i < n; ++i) y[i] = tanh_fn(y[i]);
      break;
    case Activation::sigmoid:
      for (int64_t i = 0; i < n; ++i) y[i] = sigmoid_fn(y[i]);
      break;
    case Activation::relu:
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] > T(0) ? y[i] : T(0);
      break;
    case Activation::linear:
      break;
  }
}
// d = g * f'(pre-activation), with f' written in terms of the output y = f(pre-activation).
template <typename T>
void times_derivative(Activation f, T* d, const T* g, const T* y, int64_t n) {
  switch (f) {
    case Activation::tanh:
      for (int64_t i = 0; i < n; ++i) d[i] = g[i] * (T(1) - y[i] * y[i]);
      break;
    case Activation::sigmoid:
      for (int64_t i = 0; i < n; ++i) d[i] = g[i] * y[i] * (T(1) - y[i]);
      break;
    case Activation::relu:
      for (int64_t i = 0; i < n; ++i) d[i] = y[i] > T(0) ? g[i] : T(0);
      break;
    case Activation::linear:
      for (int64_t i = 0; i < n; ++i) d[i] = g[i];
      break;
  }
}

// The sizes and operands of one run, shared by the forward and backward loops.
template <typename T>
struct Sequence {
  RnnOperands at;
  CellLayout layout;
  int64_t batch, time, units, width;    // width: gates * units
  int64_t record_width, record_stride;  // record_stride: one batch row of the record
  const T* kernel;
  const T* recurrent_bias = nullptr;
  const bool* mask = nullptr;
  const T* dropout = nullptr;

  Sequence(const KernelContext& c, const RnnOperands& operands, int64_t time_steps)
      : at(operands),
        layout{operands.cell, c.inputs[2].dim(0)},
        batch(c.output.dim(0)),
        time(time_steps),
        units(layout.units),
        width(layout.gates() * units),
        record_width(layout.record_width()),
        record_stride((time_steps + 1) * layout.record_width()),
        kernel(c.inputs[2].data<T>()) {
    if (at.recurrent_bias >= 0) recurrent_bias = input(c, at.recurrent_bias).template data<T>();
    if (at.mask >= 0) mask = input(c, at.mask).template data<bool>();
    if (at.dropout >= 0) dropout = input(c, at.dropout).template data<T>();
  }
  static const Tensor& input(const KernelContext& c, int i) {
    return c.inputs[static_cast<size_t>(i)];
  }
  // The time index step s reads.
  int64_t time_of(int64_t s) const { return at.reverse ? time - 1 - s : s; }
  bool keeps(int64_t b, int64_t t) const { return mask == nullptr || mask[b * time + t]; }
};

// The gradient of the record: all of it, or (attrs d_begin and d_end, from the graph pass over
// sliced record gradients) a block of its rows and columns, everything else being zero.
template <typename T>
class RecordGradient {
 public:
  RecordGradient(const KernelContext& c, int64_t record_rows, int64_t record_width)
      : data_(c.inputs[1].template data<T>()), rows_(record_rows), cols_(record_width) {
    if (!c.attrs.has(attr::d_begin)) return;
    const auto& begin = c.attrs.get(attr::d_begin);
    const auto& end = c.attrs.get(attr::d_end);
    const ResolvedSlice rows = resolve_slice(record_rows, begin[0], end[0], 1);
    const ResolvedSlice cols = resolve_slice(record_width, begin[1], end[1], 1);
    row0_ = rows.begin;
    rows_ = rows.length;
    col0_ = cols.begin;
    cols_ = cols.length;
    KILN_CHECK(c.inputs[1].dim(1) == rows_ && c.inputs[1].dim(2) == cols_,
               "rnn_sequence_grad: the incoming gradient ", c.inputs[1].shape(),
               " is not the record slice's ", Shape{c.inputs[1].dim(0), rows_, cols_});
  }

  // dst[k] += the gradient at batch row b, record row `row`, column first + k, for k < n.
  void add(int64_t b, int64_t row, int64_t first, int64_t n, T* dst) const {
    if (row < row0_ || row >= row0_ + rows_) return;
    const int64_t lo = std::max(first, col0_), hi = std::min(first + n, col0_ + cols_);
    const T* from = data_ + (b * rows_ + row - row0_) * cols_ - col0_;
    for (int64_t j = lo; j < hi; ++j) dst[j - first] += from[j];
  }

 private:
  const T* data_;
  int64_t row0_ = 0, rows_, col0_ = 0, cols_;
};

// Runs block(begin, end) over contiguous blocks of batch rows, one per thread. The rows of a
// recurrence are independent, so each thread steps its own rows through the whole sequence: no
// barrier per step, and the per-step matmuls run single-threaded on that thread's rows.
template <typename Fn>
void for_row_blocks(int64_t batch, Fn&& block) {
  parallel_for(batch, 1, [&](int64_t begin, int64_t end) { block(begin, end); });
}

// The rows of [begin, end) a step updates (unmasked ones), packed so the recurrent matmul skips
// the others: with every row active the matmul reads the record in place, else the active rows
// are gathered.
class ActiveRows {
 public:
  ActiveRows(int64_t begin, int64_t end)
      : begin_(begin), slots_(static_cast<size_t>(end - begin), -1), rows_(slots_.size()) {}

  template <typename T>
  void find(const Sequence<T>& q, int64_t t) {
    count_ = 0;
    for (size_t r = 0; r < slots_.size(); ++r) {
      const int64_t b = begin_ + static_cast<int64_t>(r);
      slots_[r] = q.keeps(b, t) ? count_ : -1;
      if (q.keeps(b, t)) rows_[static_cast<size_t>(count_++)] = b;
    }
  }
  int64_t first() const { return begin_; }
  int64_t count() const { return count_; }
  bool compacted() const { return count_ < static_cast<int64_t>(rows_.size()); }
  bool has(int64_t b) const { return slot(b) >= 0; }
  int64_t row(int64_t i) const { return rows_[static_cast<size_t>(i)]; }
  int64_t slot(int64_t b) const { return slots_[static_cast<size_t>(b - begin_)]; }

 private:
  int64_t begin_;
  std::vector<int64_t> slots_;  // per row of the range: its index among the active rows, or -1
  std::vector<int64_t> rows_;   // the active rows in order
  int64_t count_ = 0;
};

// out[i] = a[row(i)] . kernel for the active rows in their packed order, each a row scaled by
// `scale`'s row when given (recurrent dropout). Reads `a` in place when every row is active and
// unscaled, else gathers the rows first.
template <typename T>
void active_rows_matmul(const ActiveRows& active, const T* a, int64_t lda, int64_t k,
                        const T* scale, KernelProduct<T>& product, std::vector<T>& gathered,
                        T* out) {
  if (active.count() == 0) return;
  if (!active.compacted() && scale == nullptr) {
    product(active.count(), a + active.first() * lda, lda, out);
    return;
  }
  for (int64_t i = 0; i < active.count(); ++i) {
    const int64_t b = active.row(i);
    const T* from = a + b * lda;
    T* to = gathered.data() + i * k;
    for (int64_t j = 0; j < k; ++j) to[j] = scale != nullptr ? from[j] * scale[b * k + j] : from[j];
  }
  product(active.count(), gathered.data(), k, out);
}

// One unmasked step of one batch row: x the input projection, p the recurrent one (h_prev . U),
// prev and out the record rows before and after the step.
template <typename T>
void cell_forward(const Sequence<T>& q, const T* x, const T* p, const T* prev, T* out) {
  const int64_t u = q.units;
  switch (q.at.cell) {
    case Cell::simple:
      for (int64_t j = 0; j < u; ++j) out[j] = x[j] + p[j];
      activate(q.at.activation, out, u);
      break;
    case Cell::lstm: {
      T* gates = out + 2 * u;  // i f g o
      for (int64_t j = 0; j < 4 * u; ++j) gates[j] = x[j] + p[j];
      activate(q.at.recurrent_activation, gates, 2 * u);
      activate(q.at.activation, gates + 2 * u, u);
      activate(q.at.recurrent_activation, gates + 3 * u, u);
      const T* c_prev = prev + u;
      T* c = out + u;
      for (int64_t j = 0; j < u; ++j) c[j] = gates[u + j] * c_prev[j] + gates[j] * gates[2 * u + j];
      std::copy(c, c + u, out);
      activate(q.at.activation, out, u);
      for (int64_t j = 0; j < u; ++j) out[j] *= gates[3 * u + j];
      break;
    }
    case Cell::gru: {
      const T* rb = q.recurrent_bias;
      T* zr = out + u;  // z r, then hh and rh
      T* hh = out + 3 * u;
      T* rh = out + 4 * u;
      for (int64_t j = 0; j < 2 * u; ++j) zr[j] = x[j] + p[j] + rb[j];
      activate(q.at.recurrent_activation, zr, 2 * u);
      for (int64_t j = 0; j < u; ++j) {
        rh[j] = p[2 * u + j] + rb[2 * u + j];
        hh[j] = x[2 * u + j] + zr[u + j] * rh[j];
      }
      activate(q.at.activation, hh, u);
      for (int64_t j = 0; j < u; ++j) out[j] = zr[j] * prev[j] + (T(1) - zr[j]) * hh[j];
      break;
    }
  }
}

template <typename T>
void rnn_forward(const KernelContext& c) {
  const Tensor& projected = c.inputs[0];
  const Sequence<T> q(c, RnnOperands::of_forward(c.attrs), projected.dim(1));
  const T* x = projected.template data<T>();
  const T* initial = c.inputs[1].template data<T>();
  T* record = c.output.template data<T>();
  const int64_t u = q.units;
  const int64_t state_width = q.layout.states() * u;
  const bool shared_initial = c.inputs[1].dim(0) == 1;
  for (int64_t b = 0; b < q.batch; ++b) {
    T* row = record + b * q.record_stride;
    const T* from = initial + (shared_initial ? 0 : b) * state_width;
    std::copy(from, from + state_width, row);
    std::fill(row + state_width, row + q.record_width, T(0));
  }
  const CpuIsa isa = cpu_isa();
  for_row_blocks(q.batch, [&](int64_t begin, int64_t end) {
    std::vector<T> recurrent(static_cast<size_t>((end - begin) * q.width));
    std::vector<T> gathered(static_cast<size_t>((end - begin) * u));
    ActiveRows active(begin, end);
    KernelProduct<T> product(q.kernel, u, q.width, false);
    for (int64_t s = 0; s < q.time; ++s) {
      const int64_t t = q.time_of(s);
      active.find(q, t);
      // Masked rows skip the matmul; with dropout, h_prev is scaled on the way.
      active_rows_matmul(active, record + s * q.record_width, q.record_stride, u, q.dropout,
                         product, gathered, recurrent.data());
      run_at_isa(isa, [&] {
        for (int64_t b = begin; b < end; ++b) {
          const T* prev = record + b * q.record_stride + s * q.record_width;
          T* out = record + b * q.record_stride + (s + 1) * q.record_width;
          if (!active.has(b)) {
            std::copy(prev, prev + state_width, out);
            std::fill(out + state_width, out + q.record_width, T(0));
            continue;
          }
          cell_forward(q, x + (b * q.time + t) * q.width,
                       recurrent.data() + active.slot(b) * q.width, prev, out);
        }
      });
    }
  });
}

// One unmasked step of one batch row backwards. dh (and dc) hold the gradient of the states
// after the step; on return dc holds the gradient of c_prev and dh the part of h_prev's
// gradient that does not go through the recurrent matmul. g receives the projections' gradients.
template <typename T>
void cell_backward(const Sequence<T>& q, const T* prev, const T* out, T* dh, T* dc, T* g) {
  const int64_t u = q.units;
  switch (q.at.cell) {
    case Cell::simple:
      times_derivative(q.at.activation, g, dh, out, u);
      std::fill(dh, dh + u, T(0));
      break;
    case Cell::lstm: {
      const T* c = out + u;
      const T* gates = out + 2 * u;  // i f g o
      T* tc = g;                     // act(c), then overwritten by d(i)
      std::copy(c, c + u, tc);
      activate(q.at.activation, tc, u);
      T* d_o = g + 3 * u;
      for (int64_t j = 0; j < u; ++j) d_o[j] = dh[j] * tc[j];
      // dh through h = o * act(c), into dc; dh itself is then used as scratch.
      times_derivative(q.at.activation, dh, dh, tc, u);
      for (int64_t j = 0; j < u; ++j) {
        const T dct = dc[j] + dh[j] * gates[3 * u + j];
        g[j] = dct * gates[2 * u + j];  // d(i)
        g[u + j] = dct * prev[u + j];   // d(f)
        g[2 * u + j] = dct * gates[j];  // d(g)
        dc[j] = dct * gates[u + j];
      }
      times_derivative(q.at.recurrent_activation, g, g, gates, 2 * u);
      times_derivative(q.at.activation, g + 2 * u, g + 2 * u, gates + 2 * u, u);
      times_derivative(q.at.recurrent_activation, d_o, d_o, gates + 3 * u, u);
      std::fill(dh, dh + u, T(0));
      break;
    }
    case Cell::gru: {
      const T* z = out + u;
      const T* r = out + 2 * u;
      const T* hh = out + 3 * u;
      const T* rh = out + 4 * u;
      T* dx = g;            // z r h of the input projection
      T* drec = g + 3 * u;  // z r h of the recurrent projection
      for (int64_t j = 0; j < u; ++j) {
        dx[j] = dh[j] * (prev[j] - hh[j]);      // d(z)
        dx[2 * u + j] = dh[j] * (T(1) - z[j]);  // d(hh)
        dh[j] *= z[j];
      }
      times_derivative(q.at.activation, dx + 2 * u, dx + 2 * u, hh, u);
      for (int64_t j = 0; j < u; ++j) {
        dx[u + j] = dx[2 * u + j] * rh[j];  // d(r)
        drec[2 * u + j] = dx[2 * u + j] * r[j];
      }
      times_derivative(q.at.recurrent_activation, dx, dx, out + u, 2 * u);
      std::copy(dx, dx + 2 * u, drec);
      break;
    }
  }
}

template <typename T>
void rnn_backward(const KernelContext& c) {
  const Tensor& record_t = c.inputs[0];
  const Sequence<T> q(c, RnnOperands::of_backward(c.attrs), record_t.dim(1) - 1);
  const T* record = record_t.template data<T>();
  const RecordGradient<T> d_record(c, q.time + 1, q.record_width);
  T* grads = c.output.template data<T>();
  const int64_t u = q.units;
  const int64_t grad_width = q.layout.grad_width();
  // Without the initial states' gradient (attr initial_grad false) the rows are the steps' alone.
  const bool initial = c.attrs.get(attr::initial_grad);
  const int64_t first_step_row = initial ? 1 : 0;
  const int64_t grad_stride = (q.time + first_step_row) * grad_width;
  const int64_t recurrent_column = q.at.cell == Cell::gru ? q.width : 0;
  const bool lstm = q.at.cell == Cell::lstm;
  const CpuIsa isa = cpu_isa();
  for_row_blocks(q.batch, [&](int64_t begin, int64_t end) {
    const auto rows = static_cast<size_t>(end - begin);
    // Indexed by b - begin.
    std::vector<T> dh(rows * static_cast<size_t>(u), T(0));
    std::vector<T> dc(lstm ? dh.size() : 0, T(0));
    std::vector<T> through(dh.size());  // d(h_prev) through the recurrent matmul
    std::vector<T> gathered(rows * static_cast<size_t>(q.width));
    // The rows of this step and of the one after it, whose matmul result `through` still holds:
    // adding it in the next pass over the rows saves a pass.
    ActiveRows active(begin, end), later(begin, end);
    KernelProduct<T> product(q.kernel, q.width, u, true);
    auto add_through = [&](int64_t b) {
      if (!later.has(b)) return;
      T* dh_b = dh.data() + (b - begin) * u;
      const T* from = through.data() + later.slot(b) * u;
      const T* drop = q.dropout != nullptr ? q.dropout + b * u : nullptr;
      for (int64_t j = 0; j < u; ++j) dh_b[j] += drop != nullptr ? from[j] * drop[j] : from[j];
    };
    for (int64_t s = q.time - 1; s >= 0; --s) {
      const int64_t t = q.time_of(s);
      active.find(q, t);
      run_at_isa(isa, [&] {
        for (int64_t b = begin; b < end; ++b) {
          add_through(b);
          const T* prev = record + b * q.record_stride + s * q.record_width;
          const T* out = prev + q.record_width;
          T* dh_b = dh.data() + (b - begin) * u;
          T* dc_b = lstm ? dc.data() + (b - begin) * u : nullptr;
          d_record.add(b, s + 1, 0, u, dh_b);
          if (lstm) d_record.add(b, s + 1, u, u, dc_b);
          T* g = grads + b * grad_stride + (t + first_step_row) * grad_width;
          if (!active.has(b)) {  // the states passed through: so does their gradient
            std::fill(g, g + grad_width, T(0));
            continue;
          }
          cell_backward(q, prev, out, dh_b, dc_b, g);
        }
      });
      std::swap(active, later);
      active_rows_matmul(later, grads + (t + first_step_row) * grad_width + recurrent_column,
                         grad_stride, q.width, static_cast<const T*>(nullptr), product, gathered,
                         through.data());
    }
    if (!initial) return;
    // Row 0: the initial states' gradient (plus any read of record row 0 itself).
    for (int64_t b = begin; b < end; ++b) {
      add_through(b);
      T* g = grads + b * grad_stride;
      const T* dh_b = dh.data() + (b - begin) * u;
      std::fill(g, g + grad_width, T(0));
      std::copy(dh_b, dh_b + u, g);
      d_record.add(b, 0, 0, u, g);
      if (lstm) {
        const T* dc_b = dc.data() + (b - begin) * u;
        std::copy(dc_b, dc_b + u, g + u);
        d_record.add(b, 0, u, u, g + u);
      }
    }
  });
}

void rnn_sequence_kernel(const KernelContext& c) {
  if (c.output.dtype() == DType::f32)
    rnn_forward<float>(c);
  else
    rnn_forward<double>(c);
}
void rnn_sequence_grad_kernel(const KernelContext& c) {
  if (c.output.dtype() == DType::f32)
    rnn_backward<float>(c);
  else
    rnn_backward<double>(c);
}

}  // namespace

void register_rnn_kernels(OpTable& t) {
  t.set_kernel(OpId::rnn_sequence, DeviceType::cpu, rnn_sequence_kernel);
  t.set_kernel(OpId::rnn_sequence_grad, DeviceType::cpu, rnn_sequence_grad_kernel);
}

}  // namespace kiln::cpu
