// Max and average pooling and their gradients as plain loops. Padding cells take no part: they
// never win a max and are not counted in an average (TensorFlow/Keras semantics).
#include <vector>

#include "kiln/framework/backends/cpu/reference/nhwc_rows.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/backends/cpu/window_geometry.h"

namespace kiln::cpu::reference {
namespace {

// The window position (kh * kernel width + kw) of the largest value of channel c in output
// pixel o's window; the first in scan order wins ties.
template <typename T>
int64_t window_argmax(const T* x, const PoolGeometry& g, const Pixel& o, int64_t c) {
  int64_t best = -1;
  double best_value = 0;
  for (int64_t kh = 0; kh < g.h.kernel; ++kh) {
    const int64_t ih = g.h.input_at(o.h, kh);
    if (!g.h.inside(ih)) continue;
    for (int64_t kw = 0; kw < g.w.kernel; ++kw) {
      const int64_t iw = g.w.input_at(o.w, kw);
      if (!g.w.inside(iw)) continue;
      const double v = value_at(x, row_of(o.n, ih, iw, g.h.in, g.w.in) * g.channels + c);
      if (best < 0 || v > best_value) {
        best = kh * g.w.kernel + kw;
        best_value = v;
      }
    }
  }
  return best;
}

// The input row at window position `tap` of output pixel o.
int64_t row_at_tap(const PoolGeometry& g, const Pixel& o, int64_t tap) {
  return row_of(o.n, g.h.input_at(o.h, tap / g.w.kernel), g.w.input_at(o.w, tap % g.w.kernel),
                g.h.in, g.w.in);
}

// Whether window position `tap` of output pixel o is a real cell of the input, not padding or
// past the window.
bool is_input_cell(const PoolGeometry& g, const Pixel& o, int64_t tap) {
  return tap >= 0 && tap < g.h.kernel * g.w.kernel &&
         g.h.inside(g.h.input_at(o.h, tap / g.w.kernel)) &&
         g.w.inside(g.w.input_at(o.w, tap % g.w.kernel));
}

// Each output's gradient goes to the input at its window's argmax, tap_of(output row, c).
// Windows overlap when strides are smaller than the pool, so this scatters, serially, into
// double accumulators.
template <typename T, typename TapOf>
void scatter_to_argmax(const char* op, const Tensor& g_out, const Tensor& dx, const PoolGeometry& g,
                       TapOf&& tap_of) {
  const T* pg = static_cast<const T*>(g_out.raw_data());
  std::vector<double> acc(static_cast<size_t>(dx.numel()), 0.0);
  for (int64_t row = 0; row < g.batch * g.h.out * g.w.out; ++row) {
    const Pixel o = pixel_of(row, g.h.out, g.w.out);
    for (int64_t c = 0; c < g.channels; ++c) {
      const int64_t tap = tap_of(row, o, c);
      KILN_CHECK(is_input_cell(g, o, tap), op, ": argmax ", tap, " of pooled value ",
                 row * g.channels + c, " is not an input cell of its ", g.h.kernel, "x", g.w.kernel,
                 " window over the ", g.h.in, "x", g.w.in, " input");
      acc[row_at_tap(g, o, tap) * g.channels + c] += value_at(pg, row * g.channels + c);
    }
  }
  T* pdx = static_cast<T*>(dx.raw_data());
  for (size_t i = 0; i < acc.size(); ++i) pdx[i] = convert_value<T>(acc[i]);
}

// The number of real (not padding) cells in output (oh, ow)'s window.
double window_count(const PoolGeometry& g, int64_t oh, int64_t ow) {
  return static_cast<double>(g.h.taps_inside(oh) * g.w.taps_inside(ow));
}

}  // namespace

void max_pool2d(const Tensor& x, const Tensor& out, const Attrs& attrs) {
  max_pool2d_with_argmax(x, out, Tensor(), attrs);
}

void max_pool2d_with_argmax(const Tensor& x, const Tensor& out, const Tensor& argmax,
                            const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x.shape(), attrs);
  uint8_t* taps = argmax.defined() ? argmax.data<uint8_t>() : nullptr;
  visit_float_dtype(out.dtype(), "max_pool2d", [&]<typename T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const auto max_row = [&](int64_t row, double* acc) {
      const Pixel o = pixel_of(row, g.h.out, g.w.out);
      for (int64_t c = 0; c < g.channels; ++c) {
        const int64_t tap = window_argmax(px, g, o, c);
        acc[c] = value_at(px, row_at_tap(g, o, tap) * g.channels + c);
        if (taps != nullptr) taps[row * g.channels + c] = static_cast<uint8_t>(tap);
      }
    };
    accumulate_rows(static_cast<T*>(out.raw_data()), g.batch * g.h.out * g.w.out, g.channels,
                    max_row);
  });
}

void max_pool2d_grad(const Tensor& x, const Tensor& g_out, const Tensor& dx, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x.shape(), attrs);
  visit_float_dtype(x.dtype(), "max_pool2d_grad", [&]<typename T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    scatter_to_argmax<T>("max_pool2d_grad", g_out, dx, g, [&](int64_t, const Pixel& o, int64_t c) {
      return window_argmax(px, g, o, c);
    });
  });
}

void max_pool2d_grad_from_argmax(const Tensor& argmax, const Tensor& g_out, const Tensor& dx,
                                 const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(dx.shape(), attrs);
  const uint8_t* taps = argmax.data<uint8_t>();
  visit_float_dtype(dx.dtype(), "max_pool2d_grad_from_argmax", [&]<typename T>() {
    scatter_to_argmax<T>("max_pool2d_grad_from_argmax", g_out, dx, g,
                         [&](int64_t row, const Pixel&, int64_t c) {
                           return static_cast<int64_t>(taps[row * g.channels + c]);
                         });
  });
}

void avg_pool2d(const Tensor& x, const Tensor& out, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(x.shape(), attrs);
  visit_float_dtype(out.dtype(), "avg_pool2d", [&]<typename T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const auto mean_row = [&](int64_t row, double* acc) {
      const Pixel o = pixel_of(row, g.h.out, g.w.out);
      for (int64_t kh = 0; kh < g.h.kernel; ++kh) {
        const int64_t ih = g.h.input_at(o.h, kh);
        if (!g.h.inside(ih)) continue;
        for (int64_t kw = 0; kw < g.w.kernel; ++kw) {
          const int64_t iw = g.w.input_at(o.w, kw);
          if (!g.w.inside(iw)) continue;
          const T* xs = px + row_of(o.n, ih, iw, g.h.in, g.w.in) * g.channels;
          for (int64_t c = 0; c < g.channels; ++c) acc[c] += value_at(xs, c);
        }
      }
      const double count = window_count(g, o.h, o.w);
      for (int64_t c = 0; c < g.channels; ++c) acc[c] /= count;
    };
    accumulate_rows(static_cast<T*>(out.raw_data()), g.batch * g.h.out * g.w.out, g.channels,
                    mean_row);
  });
}

// dx[n, ih, iw, c] = sum over the windows holding (ih, iw) of grad / (the window's cell count).
void avg_pool2d_grad(const Tensor& g_out, const Tensor& dx, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(dx.shape(), attrs);
  visit_float_dtype(dx.dtype(), "avg_pool2d_grad", [&]<typename T>() {
    const T* pg = static_cast<const T*>(g_out.raw_data());
    const auto sum_row = [&](int64_t row, double* acc) {
      const Pixel i = pixel_of(row, g.h.in, g.w.in);
      for (int64_t kh = 0; kh < g.h.kernel; ++kh) {
        const int64_t oh = g.h.output_reading(i.h, kh);
        if (oh < 0) continue;
        for (int64_t kw = 0; kw < g.w.kernel; ++kw) {
          const int64_t ow = g.w.output_reading(i.w, kw);
          if (ow < 0) continue;
          const T* gs = pg + row_of(i.n, oh, ow, g.h.out, g.w.out) * g.channels;
          const double count = window_count(g, oh, ow);
          for (int64_t c = 0; c < g.channels; ++c) acc[c] += value_at(gs, c) / count;
        }
      }
    };
    accumulate_rows(static_cast<T*>(dx.raw_data()), g.batch * g.h.in * g.w.in, g.channels, sum_row);
  });
}

}  // namespace kiln::cpu::reference
