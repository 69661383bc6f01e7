#pragma once
// The recurrent cells' arithmetic on the device: one step of one unit of one batch row, forward
// and backward, in the CPU kernel's order of operations (backends/cpu/rnn_kernels.cpp) and on the
// record layout of framework/ops/rnn_cell.h. A unit's gates and states read only that unit's
// columns, so one thread per (row, unit) runs a step without sharing anything with its
// neighbours.
#include <cstdint>

#include "kiln/framework/ops/rnn_cell.h"

namespace kiln::cuda::recurrent {

using rnn::Activation;
using rnn::Cell;

struct CellSpec {
  Cell cell;
  Activation activation;
  Activation recurrent_activation;  // the GRU's and LSTM's gates
  int64_t units;
};

// CUDA's full-precision tanh and exp, not the fast intrinsics: the CPU's float32 kernel uses
// polynomials accurate to a few ulp and its float64 kernel the C library, and both agree with
// these within the backends' parity tolerance.
__device__ inline float tanh_of(float x) {
  return tanhf(x);
}
__device__ inline double tanh_of(double x) {
  return tanh(x);
}
__device__ inline float exp_of(float x) {
  return expf(x);
}
__device__ inline double exp_of(double x) {
  return exp(x);
}

template <typename T>
__device__ T activate(Activation f, T x) {
  switch (f) {
    case Activation::tanh:
      return tanh_of(x);
    case Activation::sigmoid:
      return T(1) / (T(1) + exp_of(-x));
    case Activation::relu:
      return x > T(0) ? x : T(0);
    case Activation::linear:
      return x;
  }
  return x;
}

// g * f'(pre-activation), with f' written in terms of the output y = f(pre-activation).
template <typename T>
__device__ T times_derivative(Activation f, T g, T y) {
  switch (f) {
    case Activation::tanh:
      return g * (T(1) - y * y);
    case Activation::sigmoid:
      return g * y * (T(1) - y);
    case Activation::relu:
      return y > T(0) ? g : T(0);
    case Activation::linear:
      return g;
  }
  return g;
}

// One kept step of unit j: x and p the row's input and recurrent projections (gates * units
// each), recurrent_bias a GRU's, prev and out the row's record rows before and after the step.
template <typename T>
__device__ void cell_forward(const CellSpec& q, int64_t j, const T* x, const T* p,
                             const T* recurrent_bias, const T* prev, T* out) {
  const int64_t u = q.units;
  switch (q.cell) {
    case Cell::simple:
      out[j] = activate(q.activation, x[j] + p[j]);
      break;
    case Cell::lstm: {  // record: h c | i f g o
      const T i = activate(q.recurrent_activation, x[j] + p[j]);
      const T f = activate(q.recurrent_activation, x[u + j] + p[u + j]);
      const T g = activate(q.activation, x[2 * u + j] + p[2 * u + j]);
      const T o = activate(q.recurrent_activation, x[3 * u + j] + p[3 * u + j]);
      const T c = f * prev[u + j] + i * g;
      out[j] = activate(q.activation, c) * o;
      out[u + j] = c;
      out[2 * u + j] = i;
      out[3 * u + j] = f;
      out[4 * u + j] = g;
      out[5 * u + j] = o;
      break;
    }
    case Cell::gru: {  // record: h | z r hh | rh
      const T* rb = recurrent_bias;
      const T z = activate(q.recurrent_activation, x[j] + p[j] + rb[j]);
      const T r = activate(q.recurrent_activation, x[u + j] + p[u + j] + rb[u + j]);
      const T rh = p[2 * u + j] + rb[2 * u + j];
      const T hh = activate(q.activation, x[2 * u + j] + r * rh);
      out[j] = z * prev[j] + (T(1) - z) * hh;
      out[u + j] = z;
      out[2 * u + j] = r;
      out[3 * u + j] = hh;
      out[4 * u + j] = rh;
      break;
    }
  }
}

// One kept step of unit j backwards. dh (and dc) hold the gradient of the states after the step;
// on return dc holds the gradient of c_prev and dh the part of h_prev's gradient that does not go
// through the recurrent matmul. g receives the row's projection gradients (grad_width columns).
template <typename T>
__device__ void cell_backward(const CellSpec& q, int64_t j, const T* prev, const T* out, T& dh,
                              T& dc, T* g) {
  const int64_t u = q.units;
  switch (q.cell) {
    case Cell::simple:
      g[j] = times_derivative(q.activation, dh, out[j]);
      dh = T(0);
      break;
    case Cell::lstm: {
      const T c = out[u + j];
      const T i = out[2 * u + j];
      const T f = out[3 * u + j];
      const T gate = out[4 * u + j];
      const T o = out[5 * u + j];
      const T tc = activate(q.activation, c);
      // dh through h = o * act(c): into o's gradient and into c's.
      const T d_o = dh * tc;
      const T dct = dc + times_derivative(q.activation, dh, tc) * o;
      g[j] = times_derivative(q.recurrent_activation, dct * gate, i);
      g[u + j] = times_derivative(q.recurrent_activation, dct * prev[u + j], f);
      g[2 * u + j] = times_derivative(q.activation, dct * i, gate);
      g[3 * u + j] = times_derivative(q.recurrent_activation, d_o, o);
      dc = dct * f;
      dh = T(0);
      break;
    }
    case Cell::gru: {  // g: z r h of the input projection, then of the recurrent one
      const T z = out[u + j];
      const T r = out[2 * u + j];
      const T hh = out[3 * u + j];
      const T rh = out[4 * u + j];
      const T dz = times_derivative(q.recurrent_activation, dh * (prev[j] - hh), z);
      const T dhh = times_derivative(q.activation, dh * (T(1) - z), hh);
      const T dr = times_derivative(q.recurrent_activation, dhh * rh, r);
      dh *= z;
      g[j] = dz;
      g[u + j] = dr;
      g[2 * u + j] = dhh;
      g[3 * u + j] = dz;
      g[4 * u + j] = dr;
      g[5 * u + j] = dhh * r;
      break;
    }
  }
}

}  // namespace kiln::cuda::recurrent
