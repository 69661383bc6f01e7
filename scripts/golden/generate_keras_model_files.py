#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu h5py && python3 scripts/golden/generate_keras_model_files.py
#        [CASE ...]   (only those cases; all by default)
"""Writes tests/training/saving/data/keras_models/: whole models saved by Keras 3 itself
(model.save("<case>.keras")), for kiln's load_model tests.

For each case:
  <case>.keras          Keras's file: metadata.json, config.json, model.weights.h5
  <case>.expected.h5    fixed inputs x0, x1, ... and Keras's predictions y0, y1, ... for them

Between them the cases hold every layer kiln has except Lambda (whose Keras config is Python
bytecode), masks made by Embedding(mask_zero) and Masking in Sequential and functional models
(Keras records the functional ones as NotEqual op nodes), shared layers, several inputs and
outputs, Masking inside a functional model, a compiled model with its optimizer state, the
preprocessing layers (an adapted Normalization among them), and a custom layer ("kiln>Scale",
which the kiln test registers as "Scale"). Weights are drawn at random so a weight loaded into the wrong
place shows.
"""
import pathlib

import sys

import h5py
import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# The weight files' models and helpers: the masked recurrent Sequential, inputs with padding,
# random weights.
from generate_keras_weight_files import inputs_for, randomize, recurrent  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/training/saving/data/keras_models"
rng = np.random.default_rng(24)
L = keras.layers


@keras.saving.register_keras_serializable(package="kiln")
class Scale(L.Layer):
    """y = x * scale, one factor per feature: the custom layer of the interop tests."""

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="scale")

    def call(self, x):
        return x * self.scale


def mlp():
    model = keras.Sequential([
        keras.Input((6,)),
        L.Dense(8, activation="relu"),
        L.BatchNormalization(),
        L.Dropout(0.5),
        L.Activation("tanh"),
        L.Dense(3),
    ], name="mlp")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(rng.standard_normal((8, 6)), rng.integers(0, 3, 8), batch_size=4, verbose=0)
    return model


def cnn():
    return keras.Sequential([
        keras.Input((8, 8, 2)),
        L.ZeroPadding2D(1),
        L.Conv2D(4, 3, activation="relu"),
        L.DepthwiseConv2D(3, padding="same"),
        L.MaxPooling2D(),
        L.UpSampling2D(),
        L.AveragePooling2D(2),
        L.Permute((2, 1, 3)),
        L.GlobalMaxPooling2D(keepdims=True),
        L.Flatten(),
        L.Dense(3),
    ], name="cnn")


def conv1d():
    return keras.Sequential([
        keras.Input((10, 3)),
        L.Conv1D(4, 3),
        L.MaxPooling1D(2),
        L.AveragePooling1D(2, strides=1),
        L.GlobalAveragePooling1D(),
        L.RepeatVector(3),
        L.Reshape((4, 3)),
        L.GlobalMaxPooling1D(),
        L.Dense(2),
    ], name="conv1d")


def masked_functional():
    ids = keras.Input((None,), dtype="int32", name="ids")
    x = L.Embedding(12, 4, mask_zero=True)(ids)
    x = L.LSTM(5, return_sequences=True)(x)
    x = L.GRU(3)(x)
    return keras.Model(ids, L.Dense(2)(x), name="masked_functional")


def masking():
    return keras.Sequential([
        keras.Input((5, 3)),
        L.Masking(0.0),
        L.LSTM(4),
        L.Dense(2),
    ], name="masking")


def masking_functional():
    # Keras's graph holds Masking's mask as two op nodes (any(not_equal(x))) read by the LSTM:
    # they make the Dense before Masking one deeper than the side branch's first Dense, which
    # the walk from the output (side branch first) would otherwise list first; the order decides
    # the weight files' numbering of the Dense layers.
    seq = keras.Input((5, 3), name="seq")
    side = keras.Input((3,), name="side")
    x = L.LSTM(4)(L.Masking(0.0)(L.Dense(3, activation="relu")(seq)))
    y = L.Dense(4)(L.Dense(4)(L.Dense(4)(side)))
    return keras.Model([seq, side], L.Dense(2)(L.Concatenate()([y, x])), name="masking_functional")


def multi_input():
    seq = keras.Input((5, 6), name="seq")
    left = keras.Input((3,), name="left")
    right = keras.Input((3,), name="right")
    x = L.MultiHeadAttention(2, 3)(seq, seq)
    x = L.LayerNormalization()(L.Add()([seq, x]))
    x = L.GlobalAveragePooling1D()(x)
    shared = L.Dense(4, activation="relu", name="shared")
    a, b = shared(left), shared(right)
    mixed = L.Concatenate()([L.Subtract()([a, b]), L.Multiply()([a, b]), L.Average()([a, b]),
                             L.Maximum()([a, b])])
    y = L.Concatenate()([x, mixed])
    image = L.Reshape((4, 4, 1))(L.Dense(16)(y))
    pooled = L.GlobalAveragePooling2D()(image)
    return keras.Model([seq, left, right], [L.Dense(2)(y), L.Dense(1, name="aux")(pooled)],
                       name="multi_input")


def custom():
    return keras.Sequential([keras.Input((4,)), Scale(), L.Dense(2)], name="custom")


def preprocessing():
    """The image preprocessing layers in front of a small CNN: the random ones (the identity in
    predict), Resizing with antialiasing, CenterCrop, and a Normalization adapted on data (its
    mean, variance and int64 count weights)."""
    normalization = L.Normalization()
    normalization.adapt(rng.uniform(0, 255, (16, 6, 6, 3)).astype(np.float32))
    return keras.Sequential([
        keras.Input((10, 12, 3)),
        L.RandomFlip(seed=1),
        L.RandomContrast(0.2, seed=2),
        L.RandomBrightness(0.1, value_range=(0, 1), seed=3),
        L.Resizing(8, 8, interpolation="bicubic", antialias=True, crop_to_aspect_ratio=True),
        L.CenterCrop(6, 6),
        normalization,
        L.Rescaling(0.5),
        L.Conv2D(2, 3),
        L.Flatten(),
        L.Dense(2),
    ], name="preprocessing")


TEXTS = ["The cat sat on the mat.", "A dog ate the cat's dinner!", "Ärger über die Straße",
         "the bird sang", "zebra yak xenops"]


def text():
    """A string input through an adapted TextVectorization (its vocabulary an asset of the
    file), an Embedding and a pooled Dense head."""
    vectorize = L.TextVectorization(max_tokens=16, output_sequence_length=6)
    vectorize.adapt(TEXTS)
    review = keras.Input(shape=(), dtype="string", name="review")
    x = L.GlobalAveragePooling1D()(L.Embedding(16, 4)(vectorize(review)))
    return keras.Model(review, L.Dense(2)(x), name="text")


COLORS = [["red", "green", "red"], ["blue", "red", "gold"], ["green", "green", "teal"],
          ["red", "blue", "blue"]]


CITIES = ["Oslo", "Lima", "Pune", "Oslo", "Kyiv"]


CODES = [[12, 36, 12], [7, 12, 1138], [36, 36, 5], [12, 7, 7]]


def lookup():
    """Two string inputs and an integer one: rows of categories through an adapted StringLookup
    counting them, a category hashed into one-hot bins, and codes through an adapted
    IntegerLookup (both vocabularies assets of the file); then a Dense layer."""
    colors = L.StringLookup(output_mode="count")
    colors.adapt(np.array(COLORS, dtype=object))
    codes = L.IntegerLookup(output_mode="multi_hot")
    codes.adapt(np.array(CODES, dtype=np.int64))
    tags = keras.Input(shape=(3,), dtype="string", name="tags")
    city = keras.Input(shape=(1,), dtype="string", name="city")
    ids = keras.Input(shape=(3,), dtype="int64", name="ids")
    hashed = L.Hashing(num_bins=8, output_mode="one_hot")(city)
    x = L.Concatenate()([colors(tags), hashed, codes(ids)])
    return keras.Model([tags, city, ids], L.Dense(2)(x), name="lookup")


def weighted_text():
    """tf_idf's weights in the file (the variable idf_weights): a string input through an adapted
    TextVectorization in tf_idf mode, and rows of categories through a StringLookup given its
    vocabulary and idf weights, with two hashed OOV indices; a category hashed with a salt."""
    vectorize = L.TextVectorization(output_mode="tf_idf", max_tokens=12)
    vectorize.adapt(TEXTS)
    colors = L.StringLookup(vocabulary=["red", "green", "blue"], idf_weights=[0.5, 1.0, 1.5],
                            num_oov_indices=2, output_mode="tf_idf")
    review = keras.Input(shape=(), dtype="string", name="review")
    tags = keras.Input(shape=(3,), dtype="string", name="tags")
    city = keras.Input(shape=(1,), dtype="string", name="city")
    hashed = L.Hashing(num_bins=5, salt=[7, 9], output_mode="one_hot")(city)
    x = L.Concatenate()([vectorize(review), colors(tags), hashed])
    return keras.Model([review, tags, city], L.Dense(2)(x), name="weighted_text")


def weight_arguments():
    """Every weight argument away from its default: initializers, regularizers and constraints
    with arguments, and an activity regularizer."""
    model = keras.Sequential([
        keras.Input((6,)),
        L.Dense(5, activation="relu",
                kernel_initializer=keras.initializers.RandomNormal(0.5, 0.1, seed=3),
                bias_initializer=keras.initializers.Constant(0.25),
                kernel_regularizer=keras.regularizers.L1L2(0.001, 0.002),
                kernel_constraint=keras.constraints.MaxNorm(1.5),
                bias_constraint=keras.constraints.NonNeg(),
                activity_regularizer=keras.regularizers.L2(0.01)),
        L.LayerNormalization(beta_initializer=keras.initializers.Constant(0.5),
                             gamma_constraint=keras.constraints.MinMaxNorm(0.5, 2.0)),
        L.Dense(2, kernel_initializer=keras.initializers.VarianceScaling(0.5, "fan_out",
                                                                          "uniform"),
                kernel_constraint=keras.constraints.UnitNorm()),
    ], name="weight_arguments")
    model.compile(optimizer="sgd", loss="mse")
    model.fit(rng.standard_normal((8, 6)), rng.standard_normal((8, 2)), batch_size=4, verbose=0)
    return model


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    cases = (mlp, cnn, conv1d, recurrent, masked_functional, masking, masking_functional,
             multi_input, custom, weight_arguments, preprocessing, text, lookup, weighted_text)
    for build in [c for c in cases if len(sys.argv) < 2 or c.__name__ in sys.argv[1:]]:
        keras.utils.clear_session()
        model = build()
        randomize(model)
        # Normalization reads its weights into a cached copy when adapted or loaded, not when
        # they are assigned: refresh it, as loading the file will.
        for layer in model.layers:
            if isinstance(layer, L.Normalization):
                layer.finalize_state()
        strings = {"text": [np.array(TEXTS + ["unseen words only"], dtype=object)],
                   "lookup": [np.array(COLORS + [["plum", "red", "plum"]], dtype=object),
                              np.array(CITIES, dtype=object).reshape(5, 1),
                              np.array(CODES + [[99, 12, 5]], dtype=np.int64)],
                   "weighted_text": [np.array(TEXTS, dtype=object),
                                     np.array(COLORS + [["plum", "red", "plum"]], dtype=object),
                                     np.array(CITIES, dtype=object).reshape(5, 1)]}
        xs = strings[model.name] if model.name in strings else inputs_for(model)
        if model.name == "masking":
            xs[0][1, -2:] = 0.0  # the second sample's last two steps: masked
        # String inputs go in as a string tensor: predict refuses a NumPy object array.
        given = [tf.constant(x) if x.dtype == object else x for x in xs]
        ys = model.predict(given if len(given) > 1 else given[0], verbose=0)
        ys = ys if isinstance(ys, list) else [ys]
        model.save(OUT / f"{model.name}.keras")
        with h5py.File(OUT / f"{model.name}.expected.h5", "w") as f:
            for i, x in enumerate(xs):
                strings = x.dtype == object
                f.create_dataset(f"x{i}", data=x, dtype=h5py.string_dtype() if strings else None)
            for i, y in enumerate(ys):
                f.create_dataset(f"y{i}", data=np.asarray(y))
        print("wrote", model.name)


if __name__ == "__main__":
    main()
