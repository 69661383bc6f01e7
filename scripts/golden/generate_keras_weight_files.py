#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu h5py && python3 scripts/golden/generate_keras_weight_files.py
"""Writes tests/training/saving/data/: small Keras models saved by Keras itself, for kiln's weight
file interop tests.

For each case:
  <case>.weights.h5   model.save_weights (Keras 3 layout: layers/<class>/vars/<i>)
  <case>.legacy.h5    model.save in the legacy HDF5 format (model_weights/<layer>/... with
                      layer_names and weight_names attributes)
  <case>.expected.h5  the model's JSON config (attribute model_config), fixed inputs x0, x1, ...
                      and Keras's predictions y0, y1, ... for them

Keras is the independent reference, needed only to regenerate the files. Weights are drawn at
random (not left at their initial values) so a weight loaded into the wrong place shows.
"""
import json
import pathlib

import h5py
import keras
import numpy as np
from keras.src.legacy.saving import legacy_h5_format

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/training/saving/data"
rng = np.random.default_rng(23)
L = keras.layers


def mlp():
    return keras.Sequential([
        keras.Input((6,)),
        L.Dense(8, activation="relu"),
        L.BatchNormalization(),
        L.Dropout(0.5),
        L.Dense(3),
    ], name="mlp")


def cnn():
    return keras.Sequential([
        keras.Input((8, 8, 2)),
        L.Conv2D(4, 3, activation="relu"),
        L.DepthwiseConv2D(3, padding="same"),
        L.MaxPooling2D(),
        L.Flatten(),
        L.Dense(3),
    ], name="cnn")


def recurrent():
    # A Sequential: Keras writes a functional model's mask as a NotEqual op node passed to each
    # layer as a mask argument, which kiln's config reader does not take yet.
    return keras.Sequential([
        keras.Input((None,), dtype="int32", name="ids"),
        L.Embedding(12, 4, mask_zero=True),
        L.LSTM(5, return_sequences=True),
        L.Bidirectional(L.GRU(3, return_sequences=True)),
        L.TimeDistributed(L.Dense(4)),
        L.SimpleRNN(3),
        L.Dense(2),
    ], name="recurrent")


def attention():
    seq = keras.Input((5, 6), name="seq")
    side = keras.Input((3,), name="side")
    x = L.MultiHeadAttention(2, 3)(seq, seq)
    x = L.LayerNormalization()(L.Add()([seq, x]))
    x = L.GlobalAveragePooling1D()(x)
    x = L.Concatenate()([x, L.Dense(4)(side)])
    return keras.Model([seq, side], [L.Dense(2)(x), L.Dense(1, name="aux")(x)], name="attention")


def inputs_for(model):
    out = []
    for spec in model.inputs:
        shape = (3,) + tuple(5 if d is None else d for d in spec.shape[1:])
        if "int" in str(spec.dtype):
            x = rng.integers(1, 12, size=shape).astype(np.int32)
            x[1, -2:] = 0  # padding
            out.append(x)
        else:
            out.append(rng.standard_normal(shape).astype(np.float32))
    return out


def randomize(model):
    for w in model.weights:
        if "float" not in str(w.dtype):
            continue  # a counter (Normalization's count) keeps its value
        value = rng.standard_normal(w.shape).astype(np.float32) * 0.5
        if "variance" in w.path:
            value = np.abs(value) + 0.5
        w.assign(value)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for build in (mlp, cnn, recurrent, attention):
        keras.utils.clear_session()
        model = build()
        randomize(model)
        name = model.name
        xs = inputs_for(model)
        ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        ys = ys if isinstance(ys, list) else [ys]
        model.save_weights(OUT / f"{name}.weights.h5")
        legacy_h5_format.save_model_to_hdf5(model, str(OUT / f"{name}.legacy.h5"),
                                            include_optimizer=False)
        with h5py.File(OUT / f"{name}.expected.h5", "w") as f:
            f.attrs["model_config"] = json.dumps(
                {"class_name": model.__class__.__name__, "config": model.get_config()})
            for i, x in enumerate(xs):
                f.create_dataset(f"x{i}", data=x)
            for i, y in enumerate(ys):
                f.create_dataset(f"y{i}", data=np.asarray(y))
        print("wrote", name)


if __name__ == "__main__":
    main()
