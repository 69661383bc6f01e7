// rnn_sequence and rnn_sequence_grad on CUDA (layouts in framework/ops/rnn_cell.h), for float32
// and float64 like the CPU kernel. Each step is one cuBLAS matmul for the recurrent projection
// of every batch row and one kernel over the gates (cell math in rnn_cells.cuh), queued on the
// device's stream with no host synchronisation. The input projections arrive precomputed, and the
// weight gradients are the op definition's matmuls over all steps, so neither is done here.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/gemm_types.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/backends/cuda/rnn_cells.cuh"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/rnn_operands.h"
#include "kiln/framework/ops/slice_bounds.h"

namespace kiln::cuda {
namespace {

using recurrent::CellSpec;
using rnn::Cell;
using rnn::CellLayout;
using rnn::RnnOperands;

int as_int(int64_t v, const char* what) {
  KILN_CHECK(v <= std::numeric_limits<int>::max(), "kiln::ops::rnn_sequence on CUDA: ", what, " ",
             v, " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

// out[m, n] = a[m, k] . b, where b is [k, n], or b^T with b stored as [n, k] when b_transposed;
// all row-major with the given row strides. cuBLAS is column-major, where a row-major matrix
// reads as its transpose, so it computes out^T = b^T a^T. Float32 accumulates in float32, on TF32
// tensor cores only when the user enables them, as matmul does.
template <typename T>
void gemm(cublasHandle_t handle, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, bool b_transposed, T* out, int64_t ldo) {
  const GemmTypes types =
      gemm_types(std::is_same_v<T, double> ? DType::f64 : DType::f32, "rnn_sequence");
  const GemmScalars scalars(1, 0);
  KILN_CUBLAS_CHECK(
      cublasGemmEx(handle, b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, as_int(n, "n"),
                   as_int(m, "m"), as_int(k, "k"), scalars.alpha(types), b, types.data,
                   as_int(ldb, "ldb"), a, types.data, as_int(lda, "lda"), scalars.beta(types), out,
                   types.data, as_int(ldo, "ldo"), types.compute, CUBLAS_GEMM_DEFAULT));
}

// The sizes, cell and mask of one run, shared by the forward and backward kernels. Record row
// s + 1 holds the states after step s, which reads time index time_of(s).
struct Sequence {
  CellSpec spec;
  int64_t batch, time;
  int64_t width;                        // gates * units: a projection's columns
  int64_t states;                       // state blocks of `units` columns: h, then c for an LSTM
  int64_t record_width, record_stride;  // record_stride: one batch row of the record
  bool reverse;
  const bool* mask;  // [batch, time]; nullptr keeps every step

  Sequence(const RnnOperands& at, const CellLayout& layout, int64_t batch_rows, int64_t steps,
           const bool* keep)
      : spec{at.cell, at.activation, at.recurrent_activation, layout.units},
        batch(batch_rows),
        time(steps),
        width(layout.gates() * layout.units),
        states(layout.states()),
        record_width(layout.record_width()),
        record_stride((steps + 1) * layout.record_width()),
        reverse(at.reverse),
        mask(keep) {}

  __host__ __device__ int64_t time_of(int64_t s) const { return reverse ? time - 1 - s : s; }
  __device__ bool keeps(int64_t b, int64_t t) const {
    return mask == nullptr || mask[b * time + t];
  }
};

const bool* mask_of(const KernelContext& c, int index) {
  return index >= 0 ? data_of<bool>(c.inputs[static_cast<size_t>(index)]) : nullptr;
}

template <typename T>
const T* optional_input(const KernelContext& c, int index) {
  return index >= 0 ? data_of<T>(c.inputs[static_cast<size_t>(index)]) : nullptr;
}

template <typename T>
struct ForwardOperands {
  const T* projected;       // [batch, time, gates * units]
  const T* recurrent;       // [batch, gates * units]: this step's h_prev . U
  const T* recurrent_bias;  // GRU only
  const T* dropout;         // [batch, units], or nullptr
  T* record;
  T* dropped_h;  // with dropout: h * dropout, the next step's matmul operand
};

// Record row 0 holds the initial states, the rest of it zeros; with dropout the first step's
// matmul reads h0 * dropout.
template <typename T>
__global__ void initial_record_kernel(Sequence q, ForwardOperands<T> d, const T* initial,
                                      bool shared_initial) {
  const int64_t u = q.spec.units;
  const int64_t state_width = q.states * u;
  const int64_t n = q.batch * q.record_width;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t b = i / q.record_width, col = i % q.record_width;
    const T v = col < state_width ? initial[(shared_initial ? 0 : b) * state_width + col] : T(0);
    d.record[b * q.record_stride + col] = v;
    if (d.dropped_h != nullptr && col < u) d.dropped_h[b * u + col] = v * d.dropout[b * u + col];
  }
}

// Step s for every (batch row, unit): the cell, or for a masked row the states carried through
// and the rest of the record row zero.
template <typename T>
__global__ void forward_step_kernel(Sequence q, ForwardOperands<T> d, int64_t s) {
  const int64_t u = q.spec.units;
  const int64_t t = q.time_of(s);
  const int64_t n = q.batch * u;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t b = i / u, j = i % u;
    const T* prev = d.record + b * q.record_stride + s * q.record_width;
    T* out = d.record + b * q.record_stride + (s + 1) * q.record_width;
    if (q.keeps(b, t)) {
      recurrent::cell_forward(q.spec, j, d.projected + (b * q.time + t) * q.width,
                              d.recurrent + b * q.width, d.recurrent_bias, prev, out);
    } else {
      for (int64_t k = 0; k < q.record_width / u; ++k)
        out[k * u + j] = k < q.states ? prev[k * u + j] : T(0);
    }
    if (d.dropped_h != nullptr) d.dropped_h[i] = out[j] * d.dropout[i];
  }
}

template <typename T>
void rnn_forward(const KernelContext& c) {
  const RnnOperands at = RnnOperands::of_forward(c.attrs);
  const Tensor& projected = c.inputs[0];
  const Tensor& initial = c.inputs[1];
  const Tensor& kernel = c.inputs[2];
  const CellLayout layout{at.cell, kernel.dim(0)};
  const Sequence q(at, layout, c.output.dim(0), projected.dim(1), mask_of(c, at.mask));
  if (c.output.numel() == 0) return;
  const int64_t u = layout.units;
  const Device device = c.output.device();
  const DeviceGuard guard(device.index);
  const cudaStream_t stream = current_stream(device.index);
  const Tensor recurrent = Tensor::empty(Shape{q.batch, q.width}, c.output.dtype(), device);
  const T* dropout = optional_input<T>(c, at.dropout);
  const Tensor dropped_h =
      dropout != nullptr ? Tensor::empty(Shape{q.batch, u}, c.output.dtype(), device) : Tensor();
  const ForwardOperands<T> d{data_of<T>(projected),
                             data_of<T>(recurrent),
                             optional_input<T>(c, at.recurrent_bias),
                             dropout,
                             static_cast<T*>(c.output.raw_data()),
                             dropout != nullptr ? static_cast<T*>(dropped_h.raw_data()) : nullptr};
  initial_record_kernel<<<grid_for(q.batch * q.record_width), kThreads, 0, stream>>>(
      q, d, data_of<T>(initial), initial.dim(0) == 1);
  KILN_CUDA_CHECK(cudaGetLastError());
  const cublasHandle_t handle = cublas_handle(device.index);
  for (int64_t s = 0; s < q.time; ++s) {
    // h_prev . U for every row (a masked row's result goes unused); h_prev is read in place from
    // the record, or scaled by the dropout mask on the previous kernel's way out.
    const T* h_prev = d.dropped_h != nullptr ? d.dropped_h : d.record + s * q.record_width;
    const int64_t h_stride = d.dropped_h != nullptr ? u : q.record_stride;
    gemm<T>(handle, q.batch, q.width, u, h_prev, h_stride, data_of<T>(kernel), q.width, false,
            static_cast<T*>(recurrent.raw_data()), q.width);
    forward_step_kernel<<<grid_for(q.batch * u), kThreads, 0, stream>>>(q, d, s);
    KILN_CUDA_CHECK(cudaGetLastError());
  }
}

// The gradient of the record: all of it, or (attrs d_begin and d_end, from the graph pass over
// sliced record gradients) a block of its rows and columns, everything else being zero.
template <typename T>
struct RecordGradient {
  const T* data;
  int64_t row0, rows, col0, cols;

  RecordGradient(const KernelContext& c, int64_t record_rows, int64_t record_width)
      : data(data_of<T>(c.inputs[1])), row0(0), rows(record_rows), col0(0), cols(record_width) {
    if (!c.attrs.has(attr::d_begin)) return;
    const auto& begin = c.attrs.get(attr::d_begin);
    const auto& end = c.attrs.get(attr::d_end);
    const ResolvedSlice r = resolve_slice(record_rows, begin[0], end[0], 1);
    const ResolvedSlice k = resolve_slice(record_width, begin[1], end[1], 1);
    row0 = r.begin;
    rows = r.length;
    col0 = k.begin;
    cols = k.length;
    KILN_CHECK(c.inputs[1].dim(1) == rows && c.inputs[1].dim(2) == cols,
               "rnn_sequence_grad: the incoming gradient ", c.inputs[1].shape(),
               " is not the record slice's ", Shape{c.inputs[1].dim(0), rows, cols});
  }

  // v plus the gradient at batch row b, record row `row`, column col.
  __device__ T plus(int64_t b, int64_t row, int64_t col, T v) const {
    if (row < row0 || row >= row0 + rows || col < col0 || col >= col0 + cols) return v;
    return v + data[(b * rows + row - row0) * cols + col - col0];
  }
};

template <typename T>
struct BackwardOperands {
  const T* record;
  RecordGradient<T> d_record;
  const T* dropout;  // [batch, units], or nullptr
  const T* through;  // [batch, units]: the later step's recurrent-projection gradient . U^T
  T* dh;             // [batch, units]: the gradient of h after the step being run
  T* dc;             // likewise of c, for an LSTM
  T* grads;          // the op's output
  int64_t grad_width, grad_stride;
  int64_t first_step_row;  // 1 when row 0 holds the initial states' gradient
};

// dh plus the part of it that went through step `later`'s recurrent matmul (in d.through), which
// only rows that step updated have; with dropout the matmul read h * dropout.
template <typename T>
__device__ T plus_through(const Sequence& q, const BackwardOperands<T>& d, int64_t later, int64_t b,
                          int64_t j, T dh) {
  if (later >= q.time || !q.keeps(b, q.time_of(later))) return dh;
  const int64_t k = b * q.spec.units + j;
  return dh + (d.dropout != nullptr ? d.through[k] * d.dropout[k] : d.through[k]);
}

// Step s backwards for every (batch row, unit): the cell's gradient, or for a masked row zero
// projection gradients and the states' gradients carried through, as the states were.
template <typename T>
__global__ void backward_step_kernel(Sequence q, BackwardOperands<T> d, int64_t s) {
  const int64_t u = q.spec.units;
  const bool lstm = q.spec.cell == Cell::lstm;
  const int64_t t = q.time_of(s);
  const int64_t n = q.batch * u;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t b = i / u, j = i % u;
    T dh = d.d_record.plus(b, s + 1, j, plus_through(q, d, s + 1, b, j, d.dh[i]));
    T dc = lstm ? d.d_record.plus(b, s + 1, u + j, d.dc[i]) : T(0);
    T* g = d.grads + b * d.grad_stride + (t + d.first_step_row) * d.grad_width;
    if (q.keeps(b, t)) {
      const T* prev = d.record + b * q.record_stride + s * q.record_width;
      recurrent::cell_backward(q.spec, j, prev, prev + q.record_width, dh, dc, g);
    } else {
      for (int64_t k = 0; k < d.grad_width / u; ++k) g[k * u + j] = T(0);
    }
    d.dh[i] = dh;
    if (lstm) d.dc[i] = dc;
  }
}

// Row 0: the initial states' gradient (plus any read of record row 0 itself), zeros after it.
template <typename T>
__global__ void initial_grad_kernel(Sequence q, BackwardOperands<T> d) {
  const int64_t u = q.spec.units;
  const bool lstm = q.spec.cell == Cell::lstm;
  const int64_t n = q.batch * u;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t b = i / u, j = i % u;
    T* g = d.grads + b * d.grad_stride;
    for (int64_t k = 0; k < d.grad_width / u; ++k) g[k * u + j] = T(0);
    g[j] = d.d_record.plus(b, 0, j, plus_through(q, d, 0, b, j, d.dh[i]));
    if (lstm) g[u + j] = d.d_record.plus(b, 0, u + j, d.dc[i]);
  }
}

template <typename T>
void rnn_backward(const KernelContext& c) {
  const RnnOperands at = RnnOperands::of_backward(c.attrs);
  const Tensor& record = c.inputs[0];
  const Tensor& kernel = c.inputs[2];
  const CellLayout layout{at.cell, kernel.dim(0)};
  const Sequence q(at, layout, record.dim(0), record.dim(1) - 1, mask_of(c, at.mask));
  const RecordGradient<T> d_record(c, q.time + 1, q.record_width);
  if (c.output.numel() == 0) return;
  const int64_t u = layout.units;
  // Without the initial states' gradient (attr initial_grad false) the rows are the steps' alone.
  const bool initial = c.attrs.get(attr::initial_grad);
  const int64_t first_step_row = initial ? 1 : 0;
  const int64_t grad_width = layout.grad_width();
  const int64_t grad_stride = (q.time + first_step_row) * grad_width;
  // A GRU's recurrent projection has its own gradient columns, after the input projection's.
  const int64_t recurrent_column = at.cell == Cell::gru ? q.width : 0;
  const Device device = c.output.device();
  const DeviceGuard guard(device.index);
  const cudaStream_t stream = current_stream(device.index);
  const Shape state_shape{q.batch, u};
  const Tensor dh = Tensor::empty(state_shape, record.dtype(), device);
  const Tensor dc =
      at.cell == Cell::lstm ? Tensor::empty(state_shape, record.dtype(), device) : Tensor();
  const Tensor through = Tensor::empty(state_shape, record.dtype(), device);
  KILN_CUDA_CHECK(cudaMemsetAsync(dh.raw_data(), 0, dh.nbytes(), stream));
  if (dc.defined()) KILN_CUDA_CHECK(cudaMemsetAsync(dc.raw_data(), 0, dc.nbytes(), stream));
  T* grads = static_cast<T*>(c.output.raw_data());
  const BackwardOperands<T> d{data_of<T>(record),
                              d_record,
                              optional_input<T>(c, at.dropout),
                              data_of<T>(through),
                              static_cast<T*>(dh.raw_data()),
                              dc.defined() ? static_cast<T*>(dc.raw_data()) : nullptr,
                              grads,
                              grad_width,
                              grad_stride,
                              first_step_row};
  const cublasHandle_t handle = cublas_handle(device.index);
  const unsigned blocks = grid_for(q.batch * u);
  for (int64_t s = q.time - 1; s >= 0; --s) {
    backward_step_kernel<<<blocks, kThreads, 0, stream>>>(q, d, s);
    KILN_CUDA_CHECK(cudaGetLastError());
    // h_prev's gradient through this step's recurrent matmul: the recurrent projection's gradient
    // (zero on masked rows) . U^T, which the next kernel adds. Step 0's only serves row 0.
    if (s == 0 && !initial) continue;
    const T* d_recurrent = grads + (q.time_of(s) + first_step_row) * grad_width + recurrent_column;
    gemm<T>(handle, q.batch, u, q.width, d_recurrent, grad_stride, data_of<T>(kernel), q.width,
            true, static_cast<T*>(through.raw_data()), u);
  }
  if (!initial) return;
  initial_grad_kernel<<<blocks, kThreads, 0, stream>>>(q, d);
  KILN_CUDA_CHECK(cudaGetLastError());
}

constexpr unsigned kRnnDTypes = dtype_bit(DType::f32) | dtype_bit(DType::f64);

void rnn_sequence_kernel(const KernelContext& c) {
  visit_dtypes<kRnnDTypes>(c.output.dtype(), "kiln::ops::rnn_sequence on CUDA",
                           [&]<typename T>() { rnn_forward<T>(c); });
}

void rnn_sequence_grad_kernel(const KernelContext& c) {
  visit_dtypes<kRnnDTypes>(c.output.dtype(), "kiln::ops::rnn_sequence_grad on CUDA",
                           [&]<typename T>() { rnn_backward<T>(c); });
}

}  // namespace

void register_rnn_kernels(OpTable& t) {
  t.set_kernel(OpId::rnn_sequence, DeviceType::cuda, rnn_sequence_kernel);
  t.set_kernel(OpId::rnn_sequence_grad, DeviceType::cuda, rnn_sequence_grad_kernel);
}

}  // namespace kiln::cuda
