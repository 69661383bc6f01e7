#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_preprocessing_goldens.py
"""Writes tests/layers/preprocessing/preprocessing_goldens.inc: Keras's deterministic preprocessing layers
(Resizing in every interpolation, with antialias and the aspect-ratio crop and pad, CenterCrop,
Normalization given its statistics or adapted over batches, Discretization given its boundaries
or adapted (Keras's approximate quantiles), the random layers at inference but
RandomCrop, whose Keras 3 code passes images through unchanged there) on
fixed float32 images: each case's Keras config as JSON (which kiln reads back through its layer
registry), the input, the batches adapt saw, the output, and the layer's weights afterwards.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/layers/preprocessing/preprocessing_goldens.inc"
rng = np.random.default_rng(34)
VOCABULARY = [12, 36, 1138, 42]


def cases():
    """(name, layer, input shape, batches to adapt on: shapes, or None); a name ending in
    _training is called in training (the random affine layers, with ranges of one value, so
    that every draw is the same); one ending in _tokens gets token ids below 5, one ending in
    _ids integers in and out of VOCABULARY."""
    L = keras.layers
    image = (2, 5, 7, 3)
    resizes = []
    for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        for antialias in (False, True):
            if antialias and method in ("nearest", "area"):
                continue  # TensorFlow ignores antialias for these
            suffix = "_antialias" if antialias else ""
            resizes += [
                (f"Resizing_{method}{suffix}_down",
                 L.Resizing(4, 5, interpolation=method, antialias=antialias), image, None),
                (f"Resizing_{method}{suffix}_up",
                 L.Resizing(8, 11, interpolation=method, antialias=antialias), image, None),
            ]
    return resizes + [
        ("Resizing_cropped", L.Resizing(6, 3, crop_to_aspect_ratio=True), image, None),
        ("Resizing_padded", L.Resizing(6, 3, pad_to_aspect_ratio=True, fill_value=7.0),
         image, None),
        ("Resizing_padded_wide", L.Resizing(3, 8, pad_to_aspect_ratio=True), image, None),
        ("Resizing_one_image", L.Resizing(5, 4, interpolation="bicubic"), (5, 7, 3), None),
        ("CenterCrop", L.CenterCrop(4, 6), image, None),
        ("CenterCrop_odd_margins", L.CenterCrop(6, 4), image, None),
        ("CenterCrop_larger_than_input", L.CenterCrop(10, 5), image, None),
        ("Normalization_given", L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.25, 9.0]),
         image, None),
        ("Normalization_given_scalar_inverted",
         L.Normalization(mean=3.0, variance=2.0, invert=True), image, None),
        ("Normalization_adapted", L.Normalization(), image, [(5, 5, 7, 3), (3, 5, 7, 3)]),
        ("Normalization_adapted_axes_1_3", L.Normalization(axis=(1, 3)), image,
         [(4, 5, 7, 3), (2, 5, 7, 3), (1, 5, 7, 3)]),
        ("Normalization_adapted_all_axes", L.Normalization(axis=None), (2, 5), [(6, 5)]),
        ("RandomFlip_inference", L.RandomFlip(seed=1), image, None),
        ("RandomContrast_inference", L.RandomContrast(0.4, seed=1), image, None),
        ("RandomBrightness_inference", L.RandomBrightness(0.2, seed=1), image, None),
        ("RandomRotation_reflect_training", L.RandomRotation((0.1, 0.1)), image, None),
        ("RandomRotation_wrap_training", L.RandomRotation((-0.15, -0.15), fill_mode="wrap"),
         image, None),
        ("RandomRotation_constant_nearest_training",
         L.RandomRotation((0.2, 0.2), fill_mode="constant", fill_value=7.0,
                          interpolation="nearest"), image, None),
        ("RandomTranslation_reflect_training", L.RandomTranslation((0.3, 0.3), (-0.4, -0.4)),
         image, None),
        ("RandomTranslation_nearest_training",
         L.RandomTranslation((-0.2, -0.2), (0.25, 0.25), fill_mode="nearest"), image, None),
        ("RandomZoom_in_wrap_training", L.RandomZoom((-0.3, -0.3), fill_mode="wrap"), image,
         None),
        ("RandomZoom_out_constant_nearest_training",
         L.RandomZoom((0.5, 0.5), (0.2, 0.2), fill_mode="constant", interpolation="nearest"),
         image, None),
        ("RandomRotation_inference", L.RandomRotation(0.3, seed=2), image, None),
        # Integer tokens (the input's values are token ids below 5).
        ("CategoryEncoding_multi_hot_tokens", L.CategoryEncoding(5), (4, 3), None),
        ("CategoryEncoding_count_tokens", L.CategoryEncoding(5, output_mode="count"), (4, 3),
         None),
        ("CategoryEncoding_count_1d_tokens", L.CategoryEncoding(5, output_mode="count"), (6,),
         None),
        ("CategoryEncoding_one_hot_tokens", L.CategoryEncoding(5, output_mode="one_hot"),
         (4, 3), None),
        ("CategoryEncoding_one_hot_last_axis_1_tokens",
         L.CategoryEncoding(5, output_mode="one_hot"), (4, 1), None),
        # Integer values, some in the vocabulary [12, 36, 1138, 42], some not (1000, 7), and 0.
        ("IntegerLookup_ids", L.IntegerLookup(vocabulary=VOCABULARY), (3, 4), None),
        ("IntegerLookup_mask_ids", L.IntegerLookup(vocabulary=VOCABULARY, mask_token=0),
         (3, 4), None),
        ("IntegerLookup_no_oov_in_vocabulary_ids",
         L.IntegerLookup(vocabulary=VOCABULARY, num_oov_indices=0), (2, 3), None),
        ("IntegerLookup_multi_hot_ids",
         L.IntegerLookup(vocabulary=VOCABULARY, output_mode="multi_hot"), (3, 4), None),
        ("IntegerLookup_count_padded_ids",
         L.IntegerLookup(vocabulary=VOCABULARY, output_mode="count", max_tokens=8,
                         pad_to_max_tokens=True), (3, 4), None),
        ("IntegerLookup_invert_tokens",
         L.IntegerLookup(vocabulary=VOCABULARY, invert=True), (3, 4), None),
        ("Discretization_int", L.Discretization(bin_boundaries=[50.0, 100.0, 200.0]), (3, 4),
         None),
        ("Discretization_one_hot",
         L.Discretization(bin_boundaries=[-1.0, 120.0], output_mode="one_hot"), (5,), None),
        ("Discretization_multi_hot",
         L.Discretization(bin_boundaries=[64.0, 128.0, 192.0], output_mode="multi_hot"), (3, 4),
         None),
        ("Discretization_count",
         L.Discretization(bin_boundaries=[64.0, 128.0, 192.0], output_mode="count"), (3, 4),
         None),
        # Adapted on integers (adapt_ids: batches of VOCABULARY's values, 1000, 7 and 0).
        ("IntegerLookup_adapted_ids", L.IntegerLookup(), (3, 4), [(6, 4), (5, 4)]),
        ("IntegerLookup_adapted_mask_max_tokens_ids", L.IntegerLookup(mask_token=0, max_tokens=4),
         (3, 4), [(8, 3)]),
        ("IntegerLookup_adapted_multi_hot_ids", L.IntegerLookup(output_mode="multi_hot"), (3, 4),
         [(10,)]),
        # Quantiles of the batches: compressed (at least 1 / epsilon values), with a coarse
        # epsilon (a fractional step through the sorted values), and from too few values to
        # compress. Inputs (_values) are drawn from the batches' range.
        ("Discretization_adapted_values", L.Discretization(num_bins=4), (4, 5),
         [(40, 5), (30, 5)]),
        ("Discretization_adapted_epsilon_values",
         L.Discretization(num_bins=5, epsilon=0.1, output_mode="count"), (3, 4),
         [(7, 3), (11, 3), (5, 3)]),
        ("Discretization_adapted_few_values", L.Discretization(num_bins=8), (2, 3), [(3,)]),
    ]


def fmt(array):
    return "{" + ", ".join(f"{float(v):.9g}" for v in np.asarray(array).ravel()) + "}"


def shape(s):
    return "{" + ", ".join(map(str, s)) + "}"


def main():
    lines = ["// generated by scripts/golden/generate_preprocessing_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}, float32.",
             "// clang-format off",
             "const std::vector<PreprocessingGolden> kPreprocessingGoldens = {"]
    for name, layer, in_shape, adapt_shapes in cases():
        if name.endswith("_in_vocabulary_ids"):
            x = rng.choice(VOCABULARY, in_shape).astype(np.int64)
        elif name.endswith("_ids"):
            x = rng.choice(VOCABULARY + [1000, 7, 0], in_shape).astype(np.int64)
        elif name.endswith("_values"):
            x = rng.uniform(-3, 5, in_shape).astype(np.float32)
        elif name.endswith("_tokens"):
            x = rng.integers(0, 5, in_shape).astype(np.int32)
        else:
            x = rng.uniform(0, 255, in_shape).astype(np.float32)
        if name.endswith("_adapted_ids"):
            batches = [rng.choice(VOCABULARY + [1000, 7, 0, 12, 12, 36], s).astype(np.int64)
                       for s in adapt_shapes]
        else:
            batches = [rng.uniform(-3, 5, s).astype(np.float32) for s in adapt_shapes or []]
        if batches:
            layer.adapt(tf.data.Dataset.from_generator(
                lambda: iter(batches),
                output_signature=tf.TensorSpec((None,) + batches[0].shape[1:],
                                               tf.as_dtype(batches[0].dtype))))
        out = np.asarray(layer(x, training=name.endswith("_training")))
        config = {"class_name": layer.__class__.__name__, "config": layer.get_config()}
        weights = [w.numpy() for w in layer.weights]
        # An adapted Discretization's state is its config's bin_boundaries: kiln adapts from the
        # config without them, and compares its own with Keras's.
        boundaries = ""
        if name.startswith("Discretization_adapted"):
            boundaries = f",\n     {fmt(config['config']['bin_boundaries'])}"
            config["config"]["bin_boundaries"] = None
        lines.append(
            f'    {{"{name}",\n     R"json({json.dumps(config)})json",\n'
            f"     {shape(in_shape)}, {fmt(x)},\n"
            f"     {{{', '.join(shape(b.shape) for b in batches)}}},\n"
            f"     {{{', '.join(fmt(b) for b in batches)}}},\n"
            f"     {shape(out.shape)}, {fmt(out)},\n"
            f"     {{{', '.join(fmt(w) for w in weights)}}}{boundaries}}},")
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
