#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_op_goldens.py
"""Writes tests/framework/golden/op_goldens.inc: golden values for kiln's ops from TensorFlow.

TensorFlow is the independent reference and is needed only to regenerate the file, never to
build or test kiln. Seeds are fixed, inputs are multiples of 1/128 (exact in float32 as well)
and everything runs in float64, so a rerun with the same TensorFlow reproduces the file exactly.
Every case also holds the gradient of sum(output * upstream) with respect to each input.
"""
import pathlib

import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/framework/golden/op_goldens.inc"
# The order of kiln's GoldenParams fields: C++ designated initializers must follow it.
PARAM_ORDER = ["axes", "approximate", "alpha", "transpose_a", "transpose_b", "pool_size",
               "strides", "dilation", "groups", "padding"]

rng = np.random.default_rng(1234)


def values(shape, lo=-2.0, hi=2.0):
    """Odd multiples of 1/128 in [lo, hi]: never zero, so no case sits on a kink."""
    k = rng.integers(int(lo * 64), int(hi * 64), size=shape)
    return (2 * k + 1) / 128.0


def distinct(shape):
    """A shuffled ramp of multiples of 1/64: max pooling sees no ties."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n // 2) / 64.0).reshape(shape)


def case(name, op, fn, inputs, **params):
    xs = [tf.constant(v, tf.float64) for v in inputs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    upstream = values(y.shape)
    grads = tape.gradient(y, xs, output_gradients=tf.constant(upstream))
    return dict(name=name, op=op, params=params, inputs=inputs, expected=y.numpy(),
                upstream=upstream, grads=[g.numpy() for g in grads])


def conv2d(strides, padding, dilation, groups):
    # TensorFlow's CPU Conv2D has no gradient for groups or dilation, so groups run as separate
    # convolutions and dilation (stride 1 only) through its space-to-batch form.
    def one_group(x, k):
        if dilation == [1, 1]:
            return tf.nn.conv2d(x, k, strides, padding.upper())
        return tf.nn.with_space_to_batch(x, dilation, padding.upper(),
                                         lambda t, _, pad: tf.nn.conv2d(t, k, 1, pad),
                                         filter_shape=k.shape[:2])

    def fn(x, k):
        parts = zip(tf.split(x, groups, axis=3), tf.split(k, groups, axis=3))
        return tf.concat([one_group(a, b) for a, b in parts], axis=3)
    return fn


def conv2d_case(name, x, k, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    kernel = [k[0], k[1], x[3] // groups, k[2]]
    return case(name, "conv2d", conv2d(list(strides), padding, list(dilation), groups),
                [values(x), values(kernel)], strides=list(strides), dilation=list(dilation),
                groups=groups, padding=padding)


def pool_case(name, op, x, pool_size, strides, padding):
    tf_op = tf.nn.max_pool2d if op == "max_pool2d" else tf.nn.avg_pool2d
    return case(name, op, lambda t: tf_op(t, pool_size, strides, padding.upper()), [distinct(x)],
                pool_size=pool_size, strides=strides, padding=padding)


# tf.nn.gelu builds its constants as math_ops.cast(<Python float>, dtype), which rounds them to
# float32 first: off by ~1e-9 in float64. These are its formulas with the constants in float64.
def gelu(x):
    return 0.5 * x * tf.math.erfc(-x * np.sqrt(0.5))


def gelu_tanh(x):
    return 0.5 * x * (1 + tf.math.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def build_cases():
    cases = [
        case("gelu", "gelu", gelu, [values([3, 5], -3, 3)], approximate=False),
        case("gelu_tanh", "gelu", gelu_tanh, [values([3, 5], -3, 3)], approximate=True),
        case("softplus", "softplus", tf.nn.softplus, [values([3, 5], -4, 4)]),
        case("elu", "elu", tf.nn.elu, [values([3, 5])], alpha=1.0),
        # LeakyRelu's alpha is a float32 attribute: a float64 golden needs one exact in float32.
        case("leaky_relu", "leaky_relu", lambda x: tf.nn.leaky_relu(x, alpha=0.25),
             [values([3, 5])], alpha=0.25),
        case("sigmoid", "sigmoid", tf.math.sigmoid, [values([3, 5], -4, 4)]),
        case("erf", "erf", tf.math.erf, [values([3, 5])]),
        case("log1p", "log1p", tf.math.log1p, [values([3, 5], -0.75, 3)]),
        case("rsqrt", "rsqrt", tf.math.rsqrt, [values([3, 5], 0.25, 3)]),
    ]
    for axis, suffix in [(-1, "last_axis"), (0, "axis0")]:
        cases += [
            case(f"softmax_{suffix}", "softmax", lambda x, a=axis: tf.nn.softmax(x, axis=a),
                 [values([3, 4], -3, 3)], axes=[axis]),
            case(f"log_softmax_{suffix}", "log_softmax",
                 lambda x, a=axis: tf.nn.log_softmax(x, axis=a), [values([3, 4], -3, 3)],
                 axes=[axis]),
        ]
    cases += [
        case("logsumexp_axis1", "logsumexp", lambda x: tf.reduce_logsumexp(x, axis=1),
             [values([2, 4, 3], -3, 3)], axes=[1]),
        case("variance_axes0_2", "variance", lambda x: tf.math.reduce_variance(x, axis=[0, 2]),
             [values([3, 4, 5])], axes=[0, 2]),
    ]
    # a [2, 1, M, K] against b [3, K, N]: the batch dims broadcast to [2, 3].
    for ta, tb, suffix in [(False, False, ""), (True, False, "_transpose_a"),
                           (False, True, "_transpose_b"), (True, True, "_transpose_ab")]:
        a = values([2, 1, 4, 3] if ta else [2, 1, 3, 4])
        b = values([3, 5, 4] if tb else [3, 4, 5])
        cases.append(case("matmul_broadcast" + suffix, "matmul",
                          lambda x, y, ta=ta, tb=tb: tf.linalg.matmul(x, y, ta, tb), [a, b],
                          transpose_a=ta, transpose_b=tb))
    # Kernels are (kh, kw, out). The comments give TensorFlow's SAME padding (before, after).
    cases += [
        conv2d_case("conv2d_valid", [2, 5, 6, 2], (3, 3, 3)),
        conv2d_case("conv2d_valid_stride2_rows_left", [1, 8, 7, 2], (3, 3, 3), strides=(2, 2)),
        conv2d_case("conv2d_same_odd", [1, 7, 7, 2], (3, 3, 3), padding="same"),  # (1, 1)
        conv2d_case("conv2d_same_even_kernel", [2, 6, 5, 2], (2, 2, 3), padding="same"),  # (0, 1)
        conv2d_case("conv2d_same_stride2_even", [1, 8, 8, 2], (3, 3, 3), strides=(2, 2),
                    padding="same"),  # (0, 1)
        conv2d_case("conv2d_same_stride2_odd", [1, 7, 9, 2], (4, 3, 3), strides=(2, 2),
                    padding="same"),  # rows (1, 2), cols (1, 1)
        conv2d_case("conv2d_valid_dilation2", [1, 9, 8, 2], (3, 3, 3), dilation=(2, 2)),
        conv2d_case("conv2d_same_dilation2", [1, 8, 7, 2], (3, 3, 3), dilation=(2, 2),
                    padding="same"),  # (2, 2)
        conv2d_case("conv2d_same_groups2", [1, 6, 5, 4], (3, 3, 4), padding="same", groups=2),
        conv2d_case("conv2d_valid_stride2_groups2", [1, 7, 8, 4], (3, 3, 4), strides=(2, 2),
                    groups=2),
        case("conv1d_same_stride2", "conv1d", lambda x, k: tf.nn.conv1d(x, k, 2, "SAME"),
             [values([2, 10, 3]), values([3, 3, 4])], strides=[2], dilation=[1],
             padding="same"),  # (0, 1)
    ]
    for op in ["max_pool2d", "avg_pool2d"]:
        cases += [
            pool_case(f"{op}_valid", op, [2, 7, 7, 1], [3, 3], [2, 2], "valid"),
            pool_case(f"{op}_same", op, [2, 7, 7, 1], [3, 3], [2, 2], "same"),  # (1, 1)
            # rows (1, 2), cols (0, 1)
            pool_case(f"{op}_same_rect", op, [1, 9, 7, 2], [4, 2], [2, 3], "same"),
            # rows (1, 1), cols (0, 1)
            pool_case(f"{op}_same_overlap", op, [1, 5, 6, 2], [3, 2], [1, 1], "same"),
        ]
    return cases


def cpp_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "{" + ", ".join(str(e) for e in v) + "}"
    return repr(v)


def cpp_tensor(a, indent):
    a = np.asarray(a, np.float64)
    lines = [""]
    for v in a.ravel():
        n = f"{v:.17g}, "
        # 95 columns leave room for the closing braces after the last value.
        if lines[-1] and len(indent) + len(lines[-1] + n.rstrip()) > 95:
            lines.append("")
        lines[-1] += n
    body = ("\n" + indent).join(line.rstrip() for line in lines).rstrip(",")
    return f"{{{cpp_value(list(a.shape))},\n{indent}{{{body}}}}}"


def cpp_case(c):
    params = ", ".join(f".{k} = {cpp_value(c['params'][k])}" for k in PARAM_ORDER
                       if k in c["params"])
    i = " " * 6
    tensors = lambda ts: "{" + ",\n     ".join(cpp_tensor(t, i) for t in ts) + "}"
    return (f'    {{"{c["name"]}", "{c["op"]}",\n'
            f"     {{{params}}},\n"
            f"     {tensors(c['inputs'])},\n"
            f"     {cpp_tensor(c['expected'], i)},\n"
            f"     {cpp_tensor(c['upstream'], i)},\n"
            f"     {tensors(c['grads'])}}}")


def main():
    cases = build_cases()
    text = (f"// generated by scripts/golden/generate_op_goldens.py; do not edit.\n"
            f"// TensorFlow {tf.__version__}, float64. {len(cases)} cases.\n"
            "// clang-format off\n"
            "const std::vector<GoldenCase> kOpGoldens = {\n"
            + ",\n".join(cpp_case(c) for c in cases) + "\n};\n"
            "// clang-format on\n")
    OUT.write_text(text)
    print(f"wrote {len(cases)} cases ({len(text)} bytes) to {OUT}")


if __name__ == "__main__":
    main()
