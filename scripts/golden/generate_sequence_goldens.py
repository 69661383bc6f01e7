#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_sequence_goldens.py
"""Writes tests/layers/sequence_goldens.inc: Keras's recurrent layers (and Bidirectional) and
MultiHeadAttention on fixed inputs, masks and weights: their outputs, and the gradients of
sum(output * upstream) with respect to the inputs and every weight.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Every
layer runs in float64; each case stores the layer's Keras config as JSON, which kiln reads back
through its layer registry (so the configs are checked too). Masks are 1 for kept steps.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/layers/sequence_goldens.inc"
rng = np.random.default_rng(11)
BATCH, TIME, FEATURES = 3, 5, 4
# Row 1 is right-padded (3 steps), row 2 left-padded (2 steps).
MASK = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 0, 0, 1, 1]], dtype=bool)


def cases():
    f64 = {"dtype": "float64"}
    return [
        ("SimpleRNN_sequences", keras.layers.SimpleRNN(3, return_sequences=True, **f64), False),
        ("SimpleRNN_relu_masked", keras.layers.SimpleRNN(3, activation="relu", **f64), True),
        ("GRU_sequences_masked", keras.layers.GRU(3, return_sequences=True, **f64), True),
        ("GRU_backwards_states_masked",
         keras.layers.GRU(3, go_backwards=True, return_state=True, **f64), True),
        ("LSTM_states_masked", keras.layers.LSTM(3, return_state=True, **f64), True),
        ("LSTM_backwards_sequences",
         keras.layers.LSTM(3, go_backwards=True, return_sequences=True, **f64), False),
        ("Bidirectional_LSTM_sequences_masked",
         keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True, **f64), **f64),
         True),
        ("Bidirectional_GRU_sum_masked",
         keras.layers.Bidirectional(keras.layers.GRU(3, **f64), merge_mode="sum", **f64), True),
    ]


def fmt(array):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(array).ravel()) + "}"


def fmt_list(arrays):
    return "{" + ", ".join(fmt(a) for a in arrays) + "}"


def run(layer, masked):
    x = rng.uniform(-1, 1, (BATCH, TIME, FEATURES))
    xt = tf.constant(x, tf.float64)
    mask = tf.constant(MASK) if masked else None
    layer.build((BATCH, TIME, FEATURES))
    # Non-zero biases, so the bias gradients are checked against non-trivial values.
    for w in layer.weights:
        w.assign(rng.uniform(-0.5, 0.5, w.shape))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        out = layer(xt, mask=mask)
        outs = out if isinstance(out, (list, tuple)) else [out]
        ups = [rng.uniform(-1, 1, o.shape) for o in outs]
        loss = sum(tf.reduce_sum(o * u) for o, u in zip(outs, ups))
    gx = tape.gradient(loss, xt)
    gw = tape.gradient(loss, layer.trainable_weights)
    config = {"class_name": layer.__class__.__name__, "config": layer.get_config()}
    return x, outs, ups, gx, [w.numpy() for w in layer.trainable_weights], gw, config


def attention_cases():
    """(name, layer, input shapes, masked inputs, causal)."""
    f64 = {"dtype": "float64"}
    mha = keras.layers.MultiHeadAttention
    return [
        ("MHA_self_padding_mask", mha(2, 3, **f64), [(3, 5, 4), (3, 5, 4)], [0, 1], False),
        ("MHA_causal_value_dim_output_shape", mha(2, 2, value_dim=3, output_shape=5, **f64),
         [(3, 5, 4), (3, 5, 4)], [], True),
        ("MHA_cross_key_no_bias_value_mask", mha(1, 4, use_bias=False, **f64),
         [(3, 5, 4), (3, 6, 4), (3, 6, 2)], [1, 2], False),
    ]


def run_attention(layer, shapes, masked, causal):
    xs = [tf.constant(rng.uniform(-1, 1, s), tf.float64) for s in shapes]
    masks = [None] * len(shapes)
    for i in masked:
        keep = np.ones(shapes[i][:2], dtype=bool)
        keep[1, 3:] = False  # right padding
        keep[2, :2] = False  # left padding
        masks[i] = keep
    # Keras takes the query's mask only from the tensor (as Embedding(mask_zero) leaves it) and
    # drops a query_mask argument, so the reference gets the combined mask kiln derives from
    # its input masks as attention_mask: query_mask[:, :, None] & (value or key)_mask[:, None].
    kwargs = {}
    if masked:
        combined = np.ones((shapes[0][0], shapes[0][1], shapes[1][1]), dtype=bool)
        for i in masked:
            combined &= masks[i][:, :, None] if i == 0 else masks[i][:, None, :]
        kwargs["attention_mask"] = tf.constant(combined)
    args = {"query": xs[0], "value": xs[1]}
    if len(xs) > 2:
        args["key"] = xs[2]
    layer(**args, **kwargs, use_causal_mask=causal)  # builds
    for w in layer.weights:
        w.assign(rng.uniform(-0.5, 0.5, w.shape))
    with tf.GradientTape(persistent=True) as tape:
        for x in xs:
            tape.watch(x)
        out = layer(**args, **kwargs, use_causal_mask=causal)
        up = rng.uniform(-1, 1, out.shape)
        if masks[0] is not None:  # padded query steps' outputs are unspecified: no gradient
            up = up * masks[0][:, :, None]
        loss = tf.reduce_sum(out * up)
    gx = [tape.gradient(loss, x) for x in xs]
    gw = tape.gradient(loss, layer.trainable_weights)
    config = {"class_name": "MultiHeadAttention", "config": layer.get_config()}
    config["config"]["use_causal_mask"] = causal  # a call argument in Keras, a layer option in kiln
    mask_values = [fmt(m.astype(float)) if m is not None else "{}" for m in masks]
    return (xs, mask_values, [w.numpy() for w in layer.trainable_weights], out, up, gx, gw, config)


def attention_lines():
    lines = ["const std::vector<AttentionGolden> kAttentionGoldens = {"]
    for name, layer, shapes, masked, causal in attention_cases():
        xs, masks, weights, out, up, gx, gw, config = run_attention(layer, shapes, masked, causal)
        shape_list = "{" + ", ".join("{" + ", ".join(map(str, s)) + "}" for s in shapes) + "}"
        lines.append(
            f'    {{"{name}",\n     R"json({json.dumps(config)})json",\n     {shape_list},\n'
            f"     {fmt_list(x.numpy() for x in xs)},\n     {{{', '.join(masks)}}},\n"
            f"     {fmt_list(weights)},\n     {fmt(out.numpy())},\n     {fmt(up)},\n"
            f"     {fmt_list(g.numpy() for g in gx)},\n     {fmt_list(g.numpy() for g in gw)}}},")
    return lines + ["};"]


def main():
    lines = ["// generated by scripts/golden/generate_sequence_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}, float64.",
             "// clang-format off",
             "const std::vector<SequenceGolden> kSequenceGoldens = {"]
    for name, layer, masked in cases():
        x, outs, ups, gx, weights, gw, config = run(layer, masked)
        mask = fmt(MASK.astype(float)) if masked else "{}"
        lines.append(
            f'    {{"{name}",\n     R"json({json.dumps(config)})json",\n'
            f"     {fmt(x)},\n     {mask},\n     {fmt_list(weights)},\n"
            f"     {fmt_list(o.numpy() for o in outs)},\n     {fmt_list(ups)},\n"
            f"     {fmt(gx.numpy())},\n     {fmt_list(g.numpy() for g in gw)}}},")
    lines += ["};"] + attention_lines() + ["// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
