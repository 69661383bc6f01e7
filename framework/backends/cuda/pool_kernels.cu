// Max and average pooling and their gradients on CUDA for the floating dtypes, on NHWC tensors,
// with kiln's own kernels rather than cuDNN's pooling, which cannot give the CPU's results:
// - max_pool2d_with_argmax and max_pool2d_grad_from_argmax keep the window position of each
//   maximum (kh * pool width + kw, padding cells counted but never chosen, the first in scan
//   order on ties); cuDNN keeps no argmax, and max_pool2d_grad must send each gradient to the
//   cell those ops pick, where cuDNN's backward documents no rule for ties (and wants the pooled
//   output, which max_pool2d_grad is not given);
// - TensorFlow's "same" padding puts its odd row or column after, which cuDNN's symmetric pads
//   cannot express, and padding a copy of the input would put cells in the windows that the
//   average would count and a max over negative values would pick.
// Each thread computes one element of the result in the CPU reference loops' order, summing in
// double, so values equal the reference's. Index arithmetic is 32-bit wherever the tensors allow:
// a 64-bit division is a long software sequence on the GPU, and finding a cell's coordinates
// takes several.
#include <algorithm>
#include <climits>

#include "kiln/framework/backends/cpu/window_geometry.h"
#include "kiln/framework/backends/cuda/cuda_context.h"
#include "kiln/framework/backends/cuda/cuda_kernels.h"
#include "kiln/framework/backends/cuda/kernel_helpers.h"
#include "kiln/framework/backends/cuda/launch_grid.h"
#include "kiln/framework/core/convert.h"

namespace kiln::cuda {
namespace {

// One spatial axis of the pooling windows (cpu::WindowAxis without dilation), for device code,
// in index type I: output o's tap t reads input input_at(o, t).
template <typename I>
struct Axis {
  I in;
  I out;
  I kernel;
  I stride;
  I pad_before;

  __device__ I input_at(I o, I t) const { return o * stride - pad_before + t; }
  __device__ bool inside(I i) const { return i >= 0 && i < in; }
  // The output whose tap t reads input i, or -1 when none does.
  __device__ I output_reading(I i, I t) const {
    const I shifted = i + pad_before - t;
    if (shifted < 0 || shifted % stride != 0 || shifted / stride >= out) return -1;
    return shifted / stride;
  }
  // How many of output o's taps read input rather than padding (never 0: every window holds a
  // cell of the input).
  __device__ I taps_inside(I o) const {
    const I first = input_at(o, 0);
    return (first + kernel < in ? first + kernel : in) - (first > 0 ? first : 0);
  }
};

template <typename I>
struct Pool {
  I batch;
  I channels;
  Axis<I> h, w;

  // The offset of element (n, y, x, c) of an NHWC tensor of spatial size height x width.
  __device__ I at(I n, I y, I x, I c, I height, I width) const {
    return ((n * height + y) * width + x) * channels + c;
  }
  __device__ double window_count(I oh, I ow) const {
    return static_cast<double>(h.taps_inside(oh) * w.taps_inside(ow));
  }
  // The elements of the larger of the input and the output.
  int64_t largest() const {
    return int64_t{batch} * channels * std::max(int64_t{h.in} * w.in, int64_t{h.out} * w.out);
  }
  template <typename J>
  Pool<J> as() const {
    const auto axis = [](const Axis<I>& a) {
      return Axis<J>{static_cast<J>(a.in), static_cast<J>(a.out), static_cast<J>(a.kernel),
                     static_cast<J>(a.stride), static_cast<J>(a.pad_before)};
    };
    return {static_cast<J>(batch), static_cast<J>(channels), axis(h), axis(w)};
  }
};

// The geometry of pooling an input of shape `x` (NHWC) with the op's attrs: the CPU's.
Pool<int64_t> pool_of(const Shape& x, const Attrs& attrs) {
  const cpu::PoolGeometry g = cpu::pool_geometry(x, attrs);
  const auto axis = [](const cpu::WindowAxis& a) {
    return Axis<int64_t>{a.in, a.out, a.kernel, a.stride, a.pad_before};
  };
  return {g.batch, g.channels, axis(g.h), axis(g.w)};
}

// Element i of an NHWC tensor of spatial size height x width, as (n, h, w, c).
template <typename I>
struct Pixel {
  I n, h, w, c;
};
template <typename I>
__device__ Pixel<I> pixel_of(I i, I height, I width, I channels) {
  const I c = i % channels;
  const I row = i / channels;
  return {row / (height * width), row / width % height, row % width, c};
}

// Each output's window maximum; its window position into taps[i] unless taps is null, and the
// value into pooled[i] unless pooled is null. Positions are compared in scan order with `>`, as
// the CPU's: the first of equal values wins, and a NaN only as its window's first input cell.
template <typename T, typename Tap, typename I>
__global__ void max_pool_kernel(const T* x, T* pooled, Tap* taps, I n, Pool<I> p) {
  using C = compute_t<T>;
  const I step = static_cast<I>(gridDim.x * blockDim.x);
  for (I i = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    const Pixel<I> o = pixel_of(i, p.h.out, p.w.out, p.channels);
    I best_tap = -1, best_at = 0;
    C best = C(0);
    for (I kh = 0; kh < p.h.kernel; ++kh) {
      const I ih = p.h.input_at(o.h, kh);
      if (!p.h.inside(ih)) continue;
      for (I kw = 0; kw < p.w.kernel; ++kw) {
        const I iw = p.w.input_at(o.w, kw);
        if (!p.w.inside(iw)) continue;
        const I at = p.at(o.n, ih, iw, o.c, p.h.in, p.w.in);
        const C v = convert_value<C>(x[at]);
        if (best_tap < 0 || v > best) {
          best_tap = kh * p.w.kernel + kw;
          best_at = at;
          best = v;
        }
      }
    }
    if (pooled != nullptr) pooled[i] = x[best_at];
    if (taps != nullptr) taps[i] = static_cast<Tap>(best_tap);
  }
}

// dx of a max pool from each output's window position: every input cell gathers the gradients
// of the outputs whose position is the cell, outputs in ascending order (the order the CPU
// scatters them in), summed in double. Positions that are no input cell reach no cell.
template <typename T, typename Tap, typename I>
__global__ void max_pool_grad_kernel(const Tap* taps, const T* grad, T* dx, I n, Pool<I> p) {
  const I step = static_cast<I>(gridDim.x * blockDim.x);
  for (I i = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    const Pixel<I> cell = pixel_of(i, p.h.in, p.w.in, p.channels);
    double acc = 0;
    // Taps from the last: the outputs reading the cell in ascending order.
    for (I kh = p.h.kernel - 1; kh >= 0; --kh) {
      const I oh = p.h.output_reading(cell.h, kh);
      if (oh < 0) continue;
      for (I kw = p.w.kernel - 1; kw >= 0; --kw) {
        const I ow = p.w.output_reading(cell.w, kw);
        if (ow < 0) continue;
        const I o = p.at(cell.n, oh, ow, cell.c, p.h.out, p.w.out);
        if (static_cast<I>(taps[o]) == kh * p.w.kernel + kw) acc += convert_value<double>(grad[o]);
      }
    }
    dx[i] = convert_value<T>(acc);
  }
}

// The mean of each window's input cells (padding is not counted).
template <typename T, typename I>
__global__ void avg_pool_kernel(const T* x, T* out, I n, Pool<I> p) {
  const I step = static_cast<I>(gridDim.x * blockDim.x);
  for (I i = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    const Pixel<I> o = pixel_of(i, p.h.out, p.w.out, p.channels);
    double acc = 0;
    for (I kh = 0; kh < p.h.kernel; ++kh) {
      const I ih = p.h.input_at(o.h, kh);
      if (!p.h.inside(ih)) continue;
      for (I kw = 0; kw < p.w.kernel; ++kw) {
        const I iw = p.w.input_at(o.w, kw);
        if (!p.w.inside(iw)) continue;
        acc += convert_value<double>(x[p.at(o.n, ih, iw, o.c, p.h.in, p.w.in)]);
      }
    }
    out[i] = convert_value<T>(acc / p.window_count(o.h, o.w));
  }
}

// dx[n, ih, iw, c] = the sum over the windows holding the cell of grad / (the window's count).
template <typename T, typename I>
__global__ void avg_pool_grad_kernel(const T* grad, T* dx, I n, Pool<I> p) {
  const I step = static_cast<I>(gridDim.x * blockDim.x);
  for (I i = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) {
    const Pixel<I> cell = pixel_of(i, p.h.in, p.w.in, p.channels);
    double acc = 0;
    for (I kh = 0; kh < p.h.kernel; ++kh) {
      const I oh = p.h.output_reading(cell.h, kh);
      if (oh < 0) continue;
      for (I kw = 0; kw < p.w.kernel; ++kw) {
        const I ow = p.w.output_reading(cell.w, kw);
        if (ow < 0) continue;
        acc += convert_value<double>(grad[p.at(cell.n, oh, ow, cell.c, p.h.out, p.w.out)]) /
               p.window_count(oh, ow);
      }
    }
    dx[i] = convert_value<T>(acc);
  }
}

// Runs the kernel that kernel_for(I{}) gives over n elements of the result (a grid-stride loop)
// on the device's stream, passing it `pointers`, n and the geometry, with 32-bit indices when
// every index and the loop's last step fit.
template <typename KernelFor, typename... Pointers>
void launch(KernelFor kernel_for, int device, const Pool<int64_t>& p, int64_t n,
            Pointers... pointers) {
  if (n == 0) return;  // no grid of zero blocks
  const auto run = [&]<typename I>() {
    kernel_for(I{})<<<grid_for(n), kThreads, 0, current_stream(device)>>>(
        pointers..., static_cast<I>(n), p.template as<I>());
  };
  if (p.largest() <= INT_MAX - kMaxBlocks * kThreads)
    run.template operator()<int32_t>();
  else
    run.template operator()<int64_t>();
  KILN_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
T* output_of(const Tensor& t) {
  return static_cast<T*>(t.raw_data());
}

// max_pool2d, and max_pool2d_with_argmax, whose second output (when a node reads it) receives
// the window positions.
void max_pool2d_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const Pool<int64_t> p = pool_of(x.shape(), c.attrs);
  uint8_t* taps = c.more_outputs.empty() || !c.more_outputs[0].defined()
                      ? nullptr
                      : output_of<uint8_t>(c.more_outputs[0]);
  visit_float_dtype(x.dtype(), "max_pool2d", [&]<typename T>() {
    launch([]<typename I>(I) { return max_pool_kernel<T, uint8_t, I>; }, device, p,
           c.output.numel(), data_of<T>(x), output_of<T>(c.output), taps);
  });
}

// inputs: (x, grad_out) -> dx. The window positions are found again, into a temporary: windows
// larger than max_pool2d_with_argmax's may have positions past uint8.
void max_pool2d_grad_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const Tensor& grad = c.inputs[1];
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const Pool<int64_t> p = pool_of(x.shape(), c.attrs);
  const Tensor taps = Tensor::empty(grad.shape(), DType::i32, Device::cuda(device));
  visit_float_dtype(x.dtype(), "max_pool2d_grad", [&]<typename T>() {
    launch([]<typename I>(I) { return max_pool_kernel<T, int32_t, I>; }, device, p, grad.numel(),
           data_of<T>(x), static_cast<T*>(nullptr), output_of<int32_t>(taps));
    launch([]<typename I>(I) { return max_pool_grad_kernel<T, int32_t, I>; }, device, p,
           c.output.numel(), data_of<int32_t>(taps), data_of<T>(grad), output_of<T>(c.output));
  });
}

// inputs: (argmax, grad_out); attr input_hw -> dx
void max_pool2d_grad_from_argmax_kernel(const KernelContext& c) {
  const Tensor& argmax = c.inputs[0];
  const Tensor& grad = c.inputs[1];
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const Pool<int64_t> p = pool_of(c.output.shape(), c.attrs);
  visit_float_dtype(grad.dtype(), "max_pool2d_grad_from_argmax", [&]<typename T>() {
    launch([]<typename I>(I) { return max_pool_grad_kernel<T, uint8_t, I>; }, device, p,
           c.output.numel(), data_of<uint8_t>(argmax), data_of<T>(grad), output_of<T>(c.output));
  });
}

void avg_pool2d_kernel(const KernelContext& c) {
  const Tensor& x = c.inputs[0];
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const Pool<int64_t> p = pool_of(x.shape(), c.attrs);
  visit_float_dtype(x.dtype(), "avg_pool2d", [&]<typename T>() {
    launch([]<typename I>(I) { return avg_pool_kernel<T, I>; }, device, p, c.output.numel(),
           data_of<T>(x), output_of<T>(c.output));
  });
}

// inputs: (grad_out[, shape source]); attr input_shape -> dx
void avg_pool2d_grad_kernel(const KernelContext& c) {
  const Tensor& grad = c.inputs[0];
  const int device = c.output.device().index;
  const DeviceGuard guard(device);
  const Pool<int64_t> p = pool_of(c.output.shape(), c.attrs);
  visit_float_dtype(grad.dtype(), "avg_pool2d_grad", [&]<typename T>() {
    launch([]<typename I>(I) { return avg_pool_grad_kernel<T, I>; }, device, p, c.output.numel(),
           data_of<T>(grad), output_of<T>(c.output));
  });
}

}  // namespace

void register_pool_kernels(OpTable& t) {
  constexpr auto gpu = DeviceType::cuda;
  t.set_kernel(OpId::max_pool2d, gpu, max_pool2d_kernel);
  t.set_kernel(OpId::max_pool2d_with_argmax, gpu, max_pool2d_kernel);
  t.set_kernel(OpId::max_pool2d_grad, gpu, max_pool2d_grad_kernel);
  t.set_kernel(OpId::max_pool2d_grad_from_argmax, gpu, max_pool2d_grad_from_argmax_kernel);
  t.set_kernel(OpId::avg_pool2d, gpu, avg_pool2d_kernel);
  t.set_kernel(OpId::avg_pool2d_grad, gpu, avg_pool2d_grad_kernel);
}

}  // namespace kiln::cuda
