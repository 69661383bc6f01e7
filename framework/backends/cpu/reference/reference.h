#pragma once
// Plain loop implementations of the ops that have an optimized (oneDNN) CPU path. They serve
// every dtype oneDNN lacks (float64 for gradient checks, float16) and are the oracle the tests
// compare the fast paths against.
#include "kiln/framework/ops/attrs.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::cpu::reference {

// out = op(a) @ op(b) with batch dims equal or one side without batch (all ones).
void matmul(const Tensor& a, const Tensor& b, const Tensor& out, bool transpose_a,
            bool transpose_b);
// Convolution family, attrs as in the op table (strides, dilation, same, groups).
void conv2d(const Tensor& x, const Tensor& w, const Tensor& out, const Attrs& attrs);
// out[..., c] += bias[c], rounded to out's dtype as a separate add would be; then max(out, 0)
// with relu (conv2d_bias_activation's epilogue).
void add_channel_bias(const Tensor& out, const Tensor& bias, bool relu);
void conv2d_backprop_input(const Tensor& g, const Tensor& w, const Tensor& dx, const Attrs& attrs);
void conv2d_backprop_filter(const Tensor& x, const Tensor& g, const Tensor& dw, const Attrs& attrs);
// Pooling family, attrs pool_size, strides, same.
void max_pool2d(const Tensor& x, const Tensor& out, const Attrs& attrs);
void max_pool2d_grad(const Tensor& x, const Tensor& g, const Tensor& dx, const Attrs& attrs);
// max_pool2d also writing each window's argmax position (uint8, kh * pool width + kw) into
// argmax, unless it is undefined; the gradient from those positions.
void max_pool2d_with_argmax(const Tensor& x, const Tensor& out, const Tensor& argmax,
                            const Attrs& attrs);
void max_pool2d_grad_from_argmax(const Tensor& argmax, const Tensor& g, const Tensor& dx,
                                 const Attrs& attrs);
void avg_pool2d(const Tensor& x, const Tensor& out, const Attrs& attrs);
void avg_pool2d_grad(const Tensor& g, const Tensor& dx, const Attrs& attrs);

}  // namespace kiln::cpu::reference
