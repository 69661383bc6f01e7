#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_layer_goldens.py
"""Writes tests/layers/layer_goldens.inc: Keras's core (non-recurrent) layers on fixed inputs and
weights: their outputs, the gradients of sum(output * upstream) with respect to the inputs and
every trainable weight, and (BatchNormalization in training) the moving statistics after the call.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Every
layer runs in float64; each case stores the layer's Keras config as JSON, which kiln reads back
through its layer registry (so the configs are checked too). The recurrent layers and attention
have their own goldens (scripts/golden/generate_sequence_goldens.py).
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/layers/layer_goldens.inc"
rng = np.random.default_rng(12)


def cases():
    """(name, layer, input shapes, training, integer id range: 0 for floating inputs)."""
    f64 = {"dtype": "float64"}
    L = keras.layers
    pair = [(2, 3, 4), (2, 3, 4)]
    return [
        # Core and convolutions. Odd sizes under "same" padding with strides (and the even
        # kernel dim of the depthwise case) need uneven padding: more after than before.
        ("Dense_tanh_rank3", L.Dense(3, activation="tanh", **f64), [(2, 3, 4)], False, 0),
        ("Conv1D_same_strides2", L.Conv1D(3, 3, strides=2, padding="same", **f64),
         [(2, 7, 2)], False, 0),
        ("Conv2D_valid", L.Conv2D(3, (3, 2), **f64), [(2, 5, 4, 2)], False, 0),
        ("Conv2D_same_strides2_relu",
         L.Conv2D(2, 3, strides=2, padding="same", activation="relu", **f64),
         [(2, 5, 6, 2)], False, 0),
        ("Conv2D_dilation2_no_bias", L.Conv2D(2, 2, dilation_rate=2, use_bias=False, **f64),
         [(2, 5, 5, 2)], False, 0),
        ("Conv1D_causal_dilation2", L.Conv1D(2, 3, padding="causal", dilation_rate=2, **f64),
         [(2, 6, 2)], False, 0),
        ("DepthwiseConv2D_same_multiplier2",
         L.DepthwiseConv2D((2, 3), depth_multiplier=2, padding="same", **f64),
         [(2, 4, 5, 2)], False, 0),
        ("Embedding", L.Embedding(6, 3, **f64), [(2, 4)], False, 6),
        # Pooling. Average pooling under "same" padding averages only the in-bounds elements.
        ("MaxPooling1D_same_strides2", L.MaxPooling1D(3, strides=2, padding="same", **f64),
         [(2, 7, 3)], False, 0),
        ("MaxPooling2D_valid", L.MaxPooling2D(2, **f64), [(2, 5, 4, 2)], False, 0),
        ("AveragePooling1D_strides1", L.AveragePooling1D(3, strides=1, **f64),
         [(2, 6, 3)], False, 0),
        ("AveragePooling2D_same", L.AveragePooling2D(2, padding="same", **f64),
         [(2, 5, 5, 2)], False, 0),
        ("GlobalAveragePooling1D", L.GlobalAveragePooling1D(**f64), [(2, 5, 3)], False, 0),
        ("GlobalAveragePooling2D_keepdims", L.GlobalAveragePooling2D(keepdims=True, **f64),
         [(2, 4, 3, 2)], False, 0),
        ("GlobalMaxPooling1D", L.GlobalMaxPooling1D(**f64), [(2, 5, 3)], False, 0),
        ("GlobalMaxPooling2D", L.GlobalMaxPooling2D(**f64), [(2, 4, 3, 2)], False, 0),
        # Normalization: BatchNormalization in training uses (and then folds into its moving
        # averages) the batch's statistics.
        ("BatchNormalization_training", L.BatchNormalization(momentum=0.9, **f64),
         [(5, 3)], True, 0),
        ("BatchNormalization_image_training",
         L.BatchNormalization(momentum=0.8, epsilon=1e-2, **f64), [(2, 3, 3, 2)], True, 0),
        ("LayerNormalization", L.LayerNormalization(**f64), [(2, 3, 4)], False, 0),
        ("LayerNormalization_rms_scaling_axes12",
         L.LayerNormalization(axis=(1, 2), rms_scaling=True, epsilon=1e-2, **f64),
         [(2, 3, 4)], False, 0),
        # Reshaping.
        ("ZeroPadding2D", L.ZeroPadding2D(((1, 0), (2, 1)), **f64), [(2, 3, 2, 2)], False, 0),
        ("UpSampling2D", L.UpSampling2D((2, 3), **f64), [(2, 2, 3, 2)], False, 0),
        ("Flatten", L.Flatten(**f64), [(2, 3, 2, 2)], False, 0),
        ("Reshape_inferred", L.Reshape((4, -1), **f64), [(2, 3, 4)], False, 0),
        ("Permute", L.Permute((3, 1, 2), **f64), [(2, 2, 3, 4)], False, 0),
        ("RepeatVector", L.RepeatVector(3, **f64), [(2, 4)], False, 0),
        # Merging two inputs.
        ("Add", L.Add(**f64), pair, False, 0),
        ("Subtract", L.Subtract(**f64), pair, False, 0),
        ("Multiply", L.Multiply(**f64), pair, False, 0),
        ("Average", L.Average(**f64), pair, False, 0),
        ("Maximum", L.Maximum(**f64), pair, False, 0),
        ("Concatenate_axis1", L.Concatenate(axis=1, **f64), [(2, 3, 4), (2, 2, 4)], False, 0),
    ]


def fmt(array):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(array).ravel()) + "}"


def fmt_list(arrays):
    return "{" + ", ".join(fmt(a) for a in arrays) + "}"


def run(layer, shapes, training, id_range):
    if id_range:
        xs = [tf.constant(rng.integers(0, id_range, s), tf.int32) for s in shapes]
    else:
        xs = [tf.constant(rng.uniform(-1, 1, s), tf.float64) for s in shapes]
    args = xs[0] if len(xs) == 1 else xs
    kwargs = {"training": True} if training else {}
    layer(args)  # builds (in inference: the moving statistics stay as they are)
    # Non-zero biases and betas, so their gradients are checked against non-trivial values;
    # moving variances positive.
    for w in layer.weights:
        low = 0.5 if "variance" in w.path else -0.5
        w.assign(rng.uniform(low, low + 1.0, w.shape))
    weights = [w.numpy() for w in layer.weights]
    with tf.GradientTape(persistent=True) as tape:
        for x in xs:
            tape.watch(x)
        out = layer(args, **kwargs)
        up = rng.uniform(-1, 1, out.shape)
        loss = tf.reduce_sum(out * up)
    # Integer ids have no gradient; the embedding table's arrives as IndexedSlices.
    gx = [] if id_range else [tape.gradient(loss, x).numpy() for x in xs]
    gw = [tf.convert_to_tensor(g).numpy()
          for g in tape.gradient(loss, layer.trainable_weights)]
    after = [w.numpy() for w in layer.non_trainable_weights]
    config = {"class_name": layer.__class__.__name__, "config": layer.get_config()}
    return xs, weights, out.numpy(), up, gx, gw, after, config


def main():
    lines = ["// generated by scripts/golden/generate_layer_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}, float64.",
             "// clang-format off",
             "const std::vector<LayerGolden> kLayerGoldens = {"]
    for name, layer, shapes, training, id_range in cases():
        xs, weights, out, up, gx, gw, after, config = run(layer, shapes, training, id_range)
        shape_list = "{" + ", ".join("{" + ", ".join(map(str, s)) + "}" for s in shapes) + "}"
        lines.append(
            f'    {{"{name}",\n     R"json({json.dumps(config)})json",\n'
            f"     {str(training).lower()}, {id_range}, {shape_list},\n"
            f"     {fmt_list(x.numpy() for x in xs)},\n     {fmt_list(weights)},\n"
            f"     {fmt(out)},\n     {fmt(up)},\n     {fmt_list(gx)},\n     {fmt_list(gw)},\n"
            f"     {fmt_list(after)}}},")
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
