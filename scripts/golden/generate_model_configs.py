#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_model_configs.py
"""Writes tests/training/model/keras_model_configs.inc: model configs as Keras 3 writes them.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Each
case is one JSON document: the model as keras.layers.serialize writes it (the form a layer list,
a nested model or a checkpoint's model_config holds), the names of model.layers, its weights by
"layer/weight" name, an input batch and Keras's outputs for it. Weights and inputs are multiples
of 1/64, exact in float32. tests/training/model/keras_model_config_test.cpp loads each case and
builds the same models in kiln to compare their configs.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf
from keras import layers

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/training/model/keras_model_configs.inc"

rng = np.random.default_rng(7)


def grid(shape):
    """Multiples of 1/64 in [-1, 1]."""
    return rng.integers(-64, 65, size=shape).astype(np.float32) / 64.0


def two_heads():
    """Two inputs, a layer shared between them (node indices 0 and 1), a merge, two outputs."""
    a = keras.Input((8,), name="a")
    b = keras.Input((8,), name="b")
    shared = layers.Dense(4, activation="tanh", name="shared")
    ha = shared(a)
    hb = shared(b)
    merged = layers.Concatenate(name="merged")([ha, hb])
    out1 = layers.Dense(2, name="out1")(merged)
    out2 = layers.Dense(1, name="out2")(hb)
    return keras.Model([a, b], [out1, out2], name="two_heads")


def nested():
    """A functional model called twice and a Sequential, both as layers of a functional model."""
    x = keras.Input((4,), name="x")
    h = layers.Dense(3, activation="relu", name="hidden")(x)
    inner_in = keras.Input((3,), name="inner_in")
    inner = keras.Model(inner_in, layers.Dense(2, name="inner_dense")(inner_in), name="inner")
    tower = keras.Sequential(
        [keras.Input((2,), name="tower_in"), layers.Dense(5, name="tower_dense")], name="tower")
    first = inner(h)
    second = inner(h)
    return keras.Model(x, [tower(first), second], name="nested")


def sequential():
    return keras.Sequential(
        [keras.Input((6,), name="features"), layers.Dense(5, activation="relu", name="fc1"),
         layers.Dropout(0.25, name="drop"), layers.Dense(2, name="fc2")], name="stack")


def leaf_layers(layer):
    if hasattr(layer, "layers"):
        for sub in layer.layers:
            yield from leaf_layers(sub)
    else:
        yield layer


def tensors(values):
    return [{"shape": list(t.shape), "values": np.asarray(t).ravel().tolist()} for t in values]


def case(model):
    weights = {}
    for layer in leaf_layers(model):
        for v in layer.weights:
            value = grid(v.shape)
            v.assign(value)
            weights[f"{layer.name}/{v.name}"] = {"shape": list(v.shape),
                                                 "values": value.ravel().tolist()}
    inputs = [grid((3,) + tuple(t.shape[1:])) for t in model.inputs]
    outputs = model(inputs if len(inputs) > 1 else inputs[0])
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return {"model": keras.layers.serialize(model), "layers": [l.name for l in model.layers],
            "weights": weights, "inputs": tensors(inputs), "outputs": tensors(outputs)}


def main():
    lines = [
        "// Written by scripts/golden/generate_model_configs.py; do not edit.",
        f"// Keras {keras.__version__}, TensorFlow {tf.__version__}.",
        "// clang-format off",
        "const std::vector<std::pair<std::string, std::string>> kKerasModelConfigs = {",
    ]
    for name, build in [("two_heads", two_heads), ("nested", nested),
                        ("sequential", sequential)]:
        keras.backend.clear_session()
        lines.append(f'    {{"{name}", R"json({json.dumps(case(build()))})json"}},')
    lines.append("};")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
