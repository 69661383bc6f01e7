// conv2d and its backward ops as plain loops. Each is written in gather form (one row of the
// result computed at a time from everything that contributes to it) so rows run in parallel
// without atomics and sum in a fixed order.
#include "kiln/framework/backends/cpu/reference/nhwc_rows.h"
#include "kiln/framework/backends/cpu/reference/reference.h"
#include "kiln/framework/backends/cpu/window_geometry.h"

namespace kiln::cpu::reference {

// out[n, oh, ow, o] = sum over the taps and o's group of input channels of x * w.
void conv2d(const Tensor& x, const Tensor& w, const Tensor& out, const Attrs& attrs) {
  const ConvGeometry g = conv_geometry(x.shape(), w.shape(), attrs);
  const int64_t cin = g.in_per_group(), cout = g.out_per_group();
  visit_float_dtype(out.dtype(), "conv2d", [&]<typename T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const T* pw = static_cast<const T*>(w.raw_data());
    const int64_t rows = g.batch * g.h.out * g.w.out;
    const auto sum_row = [&](int64_t row, double* acc) {
      const Pixel o = pixel_of(row, g.h.out, g.w.out);
      for (int64_t kh = 0; kh < g.h.kernel; ++kh) {
        const int64_t ih = g.h.input_at(o.h, kh);
        if (!g.h.inside(ih)) continue;
        for (int64_t kw = 0; kw < g.w.kernel; ++kw) {
          const int64_t iw = g.w.input_at(o.w, kw);
          if (!g.w.inside(iw)) continue;
          const T* xs = px + row_of(o.n, ih, iw, g.h.in, g.w.in) * g.in_channels;
          const T* ws = pw + (kh * g.w.kernel + kw) * cin * g.out_channels;
          for (int64_t gr = 0; gr < g.groups; ++gr) {
            for (int64_t ci = 0; ci < cin; ++ci) {
              const double xv = value_at(xs, gr * cin + ci);
              const T* wrow = ws + ci * g.out_channels + gr * cout;
              for (int64_t co = 0; co < cout; ++co) {
                acc[gr * cout + co] += xv * value_at(wrow, co);
              }
            }
          }
        }
      }
    };
    accumulate_rows(static_cast<T*>(out.raw_data()), rows, g.out_channels, sum_row);
  });
}

void add_channel_bias(const Tensor& out, const Tensor& bias, bool relu) {
  visit_float_dtype(out.dtype(), "conv2d_bias_activation", [&]<typename T>() {
    T* po = static_cast<T*>(out.raw_data());
    const T* pb = static_cast<const T*>(bias.raw_data());
    const int64_t channels = bias.numel();
    parallel_for(out.numel() / channels, 64, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        T* o = po + row * channels;
        for (int64_t c = 0; c < channels; ++c) {
          // In double, one rounding: the float sum rounded once, as the add op gives.
          const double v = value_at(o, c) + value_at(pb, c);
          o[c] = convert_value<T>(relu && !(v > 0) ? 0.0 : v);
        }
      }
    });
  });
}

// dx[n, ih, iw, c] = sum over the outputs whose taps read (ih, iw) of grad * w.
void conv2d_backprop_input(const Tensor& g_out, const Tensor& w, const Tensor& dx,
                           const Attrs& attrs) {
  const ConvGeometry g = conv_geometry(dx.shape(), w.shape(), attrs);
  const int64_t cin = g.in_per_group(), cout = g.out_per_group();
  visit_float_dtype(dx.dtype(), "conv2d_backprop_input", [&]<typename T>() {
    const T* pg = static_cast<const T*>(g_out.raw_data());
    const T* pw = static_cast<const T*>(w.raw_data());
    const int64_t rows = g.batch * g.h.in * g.w.in;
    const auto sum_row = [&](int64_t row, double* acc) {
      const Pixel i = pixel_of(row, g.h.in, g.w.in);
      for (int64_t kh = 0; kh < g.h.kernel; ++kh) {
        const int64_t oh = g.h.output_reading(i.h, kh);
        if (oh < 0) continue;
        for (int64_t kw = 0; kw < g.w.kernel; ++kw) {
          const int64_t ow = g.w.output_reading(i.w, kw);
          if (ow < 0) continue;
          const T* gs = pg + row_of(i.n, oh, ow, g.h.out, g.w.out) * g.out_channels;
          const T* ws = pw + (kh * g.w.kernel + kw) * cin * g.out_channels;
          for (int64_t gr = 0; gr < g.groups; ++gr) {
            for (int64_t ci = 0; ci < cin; ++ci) {
              const T* wrow = ws + ci * g.out_channels + gr * cout;
              for (int64_t co = 0; co < cout; ++co) {
                acc[gr * cin + ci] += value_at(gs, gr * cout + co) * value_at(wrow, co);
              }
            }
          }
        }
      }
    };
    accumulate_rows(static_cast<T*>(dx.raw_data()), rows, g.in_channels, sum_row);
  });
}

// dw[kh, kw, ci, o] = sum over the batch and output positions of x (at the tap) * grad.
void conv2d_backprop_filter(const Tensor& x, const Tensor& g_out, const Tensor& dw,
                            const Attrs& attrs) {
  const ConvGeometry g = conv_geometry(x.shape(), dw.shape(), attrs);
  const int64_t cin = g.in_per_group(), cout = g.out_per_group();
  visit_float_dtype(dw.dtype(), "conv2d_backprop_filter", [&]<typename T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const T* pg = static_cast<const T*>(g_out.raw_data());
    const int64_t rows = g.h.kernel * g.w.kernel * cin;
    const auto sum_row = [&](int64_t row, double* acc) {
      const int64_t kh = row / (g.w.kernel * cin);
      const int64_t kw = row / cin % g.w.kernel, ci = row % cin;
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t oh = 0; oh < g.h.out; ++oh) {
          const int64_t ih = g.h.input_at(oh, kh);
          if (!g.h.inside(ih)) continue;
          for (int64_t ow = 0; ow < g.w.out; ++ow) {
            const int64_t iw = g.w.input_at(ow, kw);
            if (!g.w.inside(iw)) continue;
            const T* xs = px + row_of(n, ih, iw, g.h.in, g.w.in) * g.in_channels;
            const T* gs = pg + row_of(n, oh, ow, g.h.out, g.w.out) * g.out_channels;
            for (int64_t gr = 0; gr < g.groups; ++gr) {
              const double xv = value_at(xs, gr * cin + ci);
              for (int64_t co = 0; co < cout; ++co) {
                acc[gr * cout + co] += xv * value_at(gs, gr * cout + co);
              }
            }
          }
        }
      }
    };
    accumulate_rows(static_cast<T*>(dw.raw_data()), rows, g.out_channels, sum_row);
  });
}

}  // namespace kiln::cpu::reference
