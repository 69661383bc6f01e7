#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_loss_goldens.py
"""Writes tests/losses/loss_goldens.inc: keras.losses classes (values and gradients) and functions.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Each
case is a loss config (the serialized form kiln's from_config reads), y_true, y_pred, an optional
sample weight and an optional mask (set on y_pred as Keras's mask, the way a masking layer
would), and holds the loss and the gradient of sum(loss * upstream) with respect to y_pred,
computed by Keras twice: in float64 (Loss(dtype="float64")) and in float32. Inputs are exact in
float32 (multiples of 1/64 or 1/128), so both runs see the same numbers kiln's tests feed in.
The functions (keras.losses.mean_squared_error, ...) are run in float64 on their own inputs.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf
from keras.src import backend

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/losses/loss_goldens.inc"

rng = np.random.default_rng(2025)


def reals(shape, limit=4.0):
    """Odd multiples of 1/64 in (-limit, limit): never 0, never a power of two like 1 or 0.5."""
    n = int(limit * 32)
    return (2 * rng.integers(-n, n, size=shape) + 1) / 64.0


def grid(shape, limit=4.0):
    """Multiples of 1/32, so reals() - grid() is never 0 (no ties in abs, max or where)."""
    n = int(limit * 32)
    return rng.integers(-n, n + 1, size=shape) / 32.0


def probabilities(shape):
    """Odd multiples of 1/128 in (0, 1)."""
    return (2 * rng.integers(0, 64, size=shape) + 1) / 128.0


def distributions(shape, axis=-1):
    """Rows along `axis` of multiples of 1/16 that sum to exactly 1 (some entries 0)."""
    moved = list(shape)
    moved.append(moved.pop(axis))
    n = moved[-1]
    rows = []
    for _ in range(int(np.prod(moved[:-1]))):
        cuts = np.sort(rng.integers(0, 17, size=n - 1))
        rows.append(np.diff(np.concatenate([[0], cuts, [16]])) / 16.0)
    return np.moveaxis(np.array(rows).reshape(moved), -1, axis)


def one_hot(labels, depth):
    return np.eye(depth)[labels]


def binary(shape):
    return rng.integers(0, 2, size=shape).astype(np.float64)


def signs(shape):
    return 2 * binary(shape) - 1


def weights(shape):
    return rng.integers(1, 9, size=shape) / 4.0


def random_mask(shape):
    m = rng.integers(0, 2, size=shape).astype(bool)
    m.flat[0] = True  # at least one valid position
    return m


def case(label, class_name, y_true, y_pred, label_dtype="float", sample_weight=None, mask=None,
         **kwargs):
    return dict(label=label, class_name=class_name, kwargs=kwargs, y_true=np.asarray(y_true),
                y_pred=np.asarray(y_pred), label_dtype=label_dtype, sample_weight=sample_weight,
                mask=mask)


def cases():
    out = []
    # ---- regression ----
    out += [
        case("mse default", "MeanSquaredError", grid((4, 3)), reals((4, 3))),
        case("mse [4] vs [4, 1], none", "MeanSquaredError", grid((4,)), reals((4, 1)),
             reduction="none"),
        case("mse sum, sample_weight [4]", "MeanSquaredError", grid((4, 3)), reals((4, 3)),
             sample_weight=weights((4,)), reduction="sum"),
        case("mse mean_with_sample_weight, sample_weight [4, 1]", "MeanSquaredError",
             grid((4, 3)), reals((4, 3)), sample_weight=weights((4, 1)),
             reduction="mean_with_sample_weight"),
        case("mse rank 3, mask [2, 3]", "MeanSquaredError", grid((2, 3, 4)), reals((2, 3, 4)),
             mask=random_mask((2, 3))),
        case("mse rank 3, mask and sample_weight [2, 1], none", "MeanSquaredError",
             grid((2, 3, 4)), reals((2, 3, 4)), mask=random_mask((2, 3)),
             sample_weight=weights((2, 1)), reduction="none"),
        case("mae default", "MeanAbsoluteError", grid((4, 3)), reals((4, 3))),
        case("mae scalar sample_weight", "MeanAbsoluteError", grid((4, 3)), reals((4, 3)),
             sample_weight=np.float64(2.5)),
        case("mae mean, mask", "MeanAbsoluteError", grid((4, 3)), reals((4, 3)),
             mask=random_mask((4,)), reduction="mean"),
        case("mape default", "MeanAbsolutePercentageError", reals((4, 3)), reals((4, 3))),
        case("mape none, zero label", "MeanAbsolutePercentageError",
             np.array([[0.0, 1.5, -2.25], [0.75, 0.0, 3.0]]), reals((2, 3)), reduction="none"),
        case("huber default", "Huber", grid((4, 3)), reals((4, 3))),
        case("huber delta 0.5, sum", "Huber", grid((4, 3)), reals((4, 3)), delta=0.5,
             reduction="sum"),
        case("huber delta 2, sample_weight [4]", "Huber", grid((4, 3)), reals((4, 3)), delta=2.0,
             sample_weight=weights((4,))),
        case("huber mean_with_sample_weight, mask and sample_weight [4]", "Huber", grid((4, 3)),
             reals((4, 3)), sample_weight=weights((4,)), mask=random_mask((4,)),
             reduction="mean_with_sample_weight"),
        case("log_cosh default", "LogCosh", grid((4, 3)), reals((4, 3))),
        case("log_cosh none, sample_weight [4]", "LogCosh", grid((4, 3), 8), reals((4, 3), 8),
             sample_weight=weights((4,)), reduction="none"),
        case("cosine_similarity default", "CosineSimilarity", reals((4, 3)), reals((4, 3))),
        case("cosine_similarity axis 0, none", "CosineSimilarity", reals((4, 3)), reals((4, 3)),
             axis=0, reduction="none"),
        case("cosine_similarity sample_weight [4]", "CosineSimilarity", reals((4, 3)),
             reals((4, 3)), sample_weight=weights((4,))),
    ]
    # ---- probabilistic ----
    clipped = probabilities((4, 3))
    clipped[0, 0], clipped[1, 2], clipped[2, 1] = 0.0, 1.0, 0.0
    out += [
        case("bce probabilities", "BinaryCrossentropy", binary((4, 3)), probabilities((4, 3))),
        case("bce clipped probabilities, none", "BinaryCrossentropy", binary((4, 3)), clipped,
             reduction="none"),
        case("bce from_logits", "BinaryCrossentropy", binary((4, 3)), reals((4, 3)),
             from_logits=True),
        case("bce label_smoothing 0.1", "BinaryCrossentropy", binary((4, 3)),
             probabilities((4, 3)), label_smoothing=0.1),
        case("bce from_logits, label_smoothing 0.2, sum", "BinaryCrossentropy", binary((4, 3)),
             reals((4, 3)), from_logits=True, label_smoothing=0.2, reduction="sum"),
        case("bce axis 0, none", "BinaryCrossentropy", binary((4, 3)), probabilities((4, 3)),
             axis=0, reduction="none"),
        case("bce [4] vs [4, 1], mask", "BinaryCrossentropy", binary((4,)),
             probabilities((4, 1)), mask=random_mask((4,))),
        case("cce probabilities (renormalized)", "CategoricalCrossentropy",
             one_hot(rng.integers(0, 3, 4), 3), probabilities((4, 3))),
        case("cce clipped probabilities, none", "CategoricalCrossentropy", distributions((4, 3)),
             clipped, reduction="none"),
        case("cce from_logits", "CategoricalCrossentropy", distributions((4, 3)), reals((4, 3)),
             from_logits=True),
        case("cce label_smoothing 0.2", "CategoricalCrossentropy",
             one_hot(rng.integers(0, 3, 4), 3), probabilities((4, 3)), label_smoothing=0.2),
        case("cce from_logits, label_smoothing 0.1, sample_weight [4, 1]",
             "CategoricalCrossentropy", one_hot(rng.integers(0, 3, 4), 3), reals((4, 3)),
             from_logits=True, label_smoothing=0.1, sample_weight=weights((4, 1))),
        case("cce from_logits axis 0, none", "CategoricalCrossentropy",
             distributions((4, 3), axis=0), reals((4, 3)), from_logits=True, axis=0,
             reduction="none"),
        case("cce axis 0, label_smoothing 0.1 (classes counted on the last axis)",
             "CategoricalCrossentropy", distributions((4, 3), axis=0), probabilities((4, 3)),
             axis=0, label_smoothing=0.1),
        case("cce rank 3 from_logits, mask [2, 3]", "CategoricalCrossentropy",
             one_hot(rng.integers(0, 4, (2, 3)), 4), reals((2, 3, 4)), from_logits=True,
             mask=random_mask((2, 3))),
        case("sparse probabilities, int32 [4]", "SparseCategoricalCrossentropy",
             rng.integers(0, 3, 4), probabilities((4, 3)), label_dtype="int32"),
        case("sparse from_logits, int64 [4, 1]", "SparseCategoricalCrossentropy",
             rng.integers(0, 3, (4, 1)), reals((4, 3)), label_dtype="int64", from_logits=True),
        case("sparse float labels, sum", "SparseCategoricalCrossentropy",
             rng.integers(0, 3, 4).astype(np.float64), probabilities((4, 3)), reduction="sum"),
        case("sparse clipped probabilities, none", "SparseCategoricalCrossentropy",
             np.array([0, 1, 2, 1]), clipped, label_dtype="int32", reduction="none"),
        case("sparse ignore_class -1", "SparseCategoricalCrossentropy",
             np.array([2, -1, 0, -1, 1]), reals((5, 3)), label_dtype="int32", from_logits=True,
             ignore_class=-1),
        case("sparse ignore_class 0, probabilities, none", "SparseCategoricalCrossentropy",
             np.array([2, 0, 1, 0]), probabilities((4, 3)), label_dtype="int64", ignore_class=0,
             reduction="none"),
        case("sparse ignore_class 255, sum, sample_weight [4]", "SparseCategoricalCrossentropy",
             np.array([1, 255, 0, 2]), reals((4, 3)), label_dtype="int32", from_logits=True,
             ignore_class=255, sample_weight=weights((4,)), reduction="sum"),
        case("sparse rank 3, ignore_class -1 and mask [2, 3]", "SparseCategoricalCrossentropy",
             np.array([[0, -1, 3], [2, 1, -1]]), reals((2, 3, 4)), label_dtype="int32",
             from_logits=True, ignore_class=-1, mask=random_mask((2, 3))),
        case("sparse rank 3, mean_with_sample_weight", "SparseCategoricalCrossentropy",
             rng.integers(0, 4, (2, 3)), reals((2, 3, 4)), label_dtype="int64",
             from_logits=True, sample_weight=weights((2, 3)),
             reduction="mean_with_sample_weight"),
        case("kld distributions with zeros", "KLDivergence", distributions((4, 3)),
             probabilities((4, 3))),
        case("kld clipped, sum", "KLDivergence", distributions((4, 3)), clipped,
             reduction="sum"),
        case("kld none, sample_weight [4]", "KLDivergence", distributions((4, 3)),
             probabilities((4, 3)), sample_weight=weights((4,)), reduction="none"),
    ]
    # ---- hinge ----
    out += [
        case("hinge -1/1 labels", "Hinge", signs((4, 3)), reals((4, 3), 2)),
        case("hinge 0/1 labels (converted)", "Hinge", binary((4, 3)), reals((4, 3), 2)),
        case("hinge mixed labels (not converted), sum", "Hinge",
             np.array([[0.0, 1.0, -1.0], [1.0, 0.0, 1.0]]), reals((2, 3), 2), reduction="sum"),
        case("hinge sample_weight [4], mask", "Hinge", signs((4, 3)), reals((4, 3), 2),
             sample_weight=weights((4,)), mask=random_mask((4,))),
    ]
    return out


def function_cases():
    """(function name, keyword arguments, label dtype, y_true, y_pred)."""
    labels = rng.integers(0, 3, 4)
    return [
        ("mean_squared_error", {}, "float", grid((4, 3)), reals((4, 3))),
        ("mean_absolute_error", {}, "float", grid((4,)), reals((4, 1))),
        ("mean_absolute_percentage_error", {}, "float", reals((4, 3)), reals((4, 3))),
        ("huber", {"delta": 0.75}, "float", grid((4, 3)), reals((4, 3))),
        ("log_cosh", {}, "float", grid((4, 3)), reals((4, 3))),
        ("cosine_similarity", {"axis": 0}, "float", reals((4, 3)), reals((4, 3))),
        ("binary_crossentropy", {"from_logits": True, "label_smoothing": 0.1}, "float",
         binary((4, 3)), reals((4, 3))),
        ("categorical_crossentropy", {"label_smoothing": 0.2}, "float", one_hot(labels, 3),
         probabilities((4, 3))),
        ("sparse_categorical_crossentropy", {"from_logits": True, "ignore_class": 1}, "int32",
         labels, reals((4, 3))),
        ("kl_divergence", {}, "float", distributions((4, 3)), probabilities((4, 3))),
        ("hinge", {}, "float", binary((4, 3)), reals((4, 3), 2)),
    ]


def run(c, dtype, upstream):
    """The loss and d sum(loss * upstream) / d y_pred, computed by Keras in `dtype`."""
    kwargs = {k: (None if k == "reduction" and v == "none" else v) for k, v in c["kwargs"].items()}
    loss = getattr(keras.losses, c["class_name"])(dtype=dtype, **kwargs)
    if c["label_dtype"] == "float":
        y_true = tf.constant(c["y_true"], dtype)
    else:
        y_true = tf.constant(c["y_true"], c["label_dtype"])
    y_pred = tf.constant(c["y_pred"], dtype)
    sample_weight = None if c["sample_weight"] is None else tf.constant(c["sample_weight"], dtype)
    with tf.GradientTape() as tape:
        tape.watch(y_pred)
        pred = tf.identity(y_pred)
        if c["mask"] is not None:
            backend.set_keras_mask(pred, tf.constant(c["mask"]))
        value = loss(y_true, pred, sample_weight=sample_weight)
    upstream = tf.ones_like(value) if upstream is None else tf.constant(upstream, dtype)
    grad = tape.gradient(value, y_pred, output_gradients=upstream)
    return value.numpy(), grad.numpy()


def fmt(array):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(array).ravel()) + "}"


def shape(array):
    return "{" + ", ".join(str(d) for d in np.shape(array)) + "}"


def optional(array):
    if array is None:
        return "{}, {}"
    return f"{shape(array)}, {fmt(np.asarray(array, np.float64))}"


def main():
    lines = ["// Written by scripts/golden/generate_loss_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}.",
             "// clang-format off",
             "const std::vector<LossGolden> kLossGoldens = {"]
    for c in cases():
        upstream = reals(np.shape(run(c, "float64", None)[0]))
        v64, g64 = run(c, "float64", upstream)
        v32, g32 = run(c, "float32", upstream)
        config = {"class_name": c["class_name"], "config": c["kwargs"]}
        lines.append(
            f'    {{"{c["label"]}",\n'
            f'     R"({json.dumps(config)})", "{c["label_dtype"]}",\n'
            f'     {shape(c["y_true"])}, {fmt(c["y_true"])},\n'
            f'     {shape(c["y_pred"])}, {fmt(c["y_pred"])},\n'
            f'     {optional(c["sample_weight"])},\n'
            f'     {optional(c["mask"])},\n'
            f'     {shape(v64)}, {fmt(upstream)},\n'
            f'     {{{fmt(v64)}, {fmt(g64)}}},\n'
            f'     {{{fmt(v32)}, {fmt(g32)}}}}},')
    lines += ["};", "", "const std::vector<FunctionGolden> kFunctionGoldens = {"]
    for name, kwargs, label_dtype, y_true, y_pred in function_cases():
        true_dtype = tf.float64 if label_dtype == "float" else label_dtype
        value = getattr(keras.losses, name)(tf.constant(y_true, true_dtype),
                                            tf.constant(y_pred, tf.float64), **kwargs).numpy()
        lines.append(
            f'    {{"{name}", R"({json.dumps(kwargs)})", "{label_dtype}",\n'
            f'     {shape(y_true)}, {fmt(y_true)},\n'
            f'     {shape(y_pred)}, {fmt(y_pred)},\n'
            f'     {shape(value)}, {fmt(value)}}},')
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
