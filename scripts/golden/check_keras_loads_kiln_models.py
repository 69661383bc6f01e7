#!/usr/bin/env python3
# Usage:
#   KILN_KERAS_EXPORT_DIR=/tmp/kiln_models build/tests/training_tests \
#       --gtest_filter='*KerasModelFile*'
#   python3 scripts/golden/check_keras_loads_kiln_models.py /tmp/kiln_models
"""Has Keras open every .keras file kiln wrote (kiln's copies of the Keras-made models of
tests/training/saving/data/keras_models, and models built and trained in kiln: a functional one
with two inputs, a shared layer, a masked LSTM and two outputs; a Sequential with Masking, LSTM,
GRU, the custom Scale layer and BatchNormalization) with keras.saving.load_model, and checks that
Keras predicts what kiln predicted (<name>.expected.h5) and, for compiled models, that Keras
compiled them and restored the optimizer's step count. Exits 1 on any difference beyond 1e-5."""
import json
import pathlib
import sys
import zipfile

import h5py
import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import generate_keras_model_files  # noqa: E402,F401  (registers the custom layer "kiln>Scale")


# Layer arguments that are Keras objects: Keras must read back the class and every argument kiln
# wrote (an initializer's stddev, a constraint's max_value), not only predict alike.
OBJECT_SUFFIXES = ("_initializer", "_regularizer", "_constraint")


def layer_configs(config):
    """Every layer config in a serialized model, nested models included, by layer name."""
    out = {}
    for layer in config.get("config", {}).get("layers", []):
        out[layer["config"]["name"]] = layer["config"]
        out.update(layer_configs(layer))
    return out


def same_object(kiln, keras_value):
    if kiln is None or keras_value is None:
        return kiln is None and keras_value is None
    if kiln["class_name"] != keras_value["class_name"]:
        return False
    return all(np.isclose(v, keras_value["config"].get(k)) if isinstance(v, (int, float))
               and not isinstance(v, bool) else v == keras_value["config"].get(k)
               for k, v in kiln["config"].items())


def object_arguments_differ(path, model):
    written = layer_configs(json.loads(zipfile.ZipFile(path).read("config.json")))
    read = {layer.name: layer.get_config() for layer in model._flatten_layers(include_self=False)}
    differ = []
    for name, config in written.items():
        for key, value in config.items():
            if key.endswith(OBJECT_SUFFIXES) and name in read and key in read[name]:
                if not same_object(value, read[name][key]):
                    differ.append(f"{name}.{key}: kiln wrote {value}, Keras read {read[name][key]}")
    return differ


def main(kiln_dir):
    worst, failures = 0.0, 0
    files = sorted(pathlib.Path(kiln_dir).glob("*.keras"))
    if not files:
        print(f"no .keras files in {kiln_dir}")
        return 1
    for path in files:
        with h5py.File(path.with_suffix(".expected.h5")) as f:
            xs = [f[k][()] for k in sorted(f) if k.startswith("x")]
            ys = [f[k][()] for k in sorted(f) if k.startswith("y")]
        model = keras.saving.load_model(path)
        # String inputs (h5py reads them as bytes objects) go in as a string tensor, which
        # predict takes where a NumPy object array is refused.
        xs = [tf.constant(x) if x.dtype == object else x for x in xs]
        out = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        out = out if isinstance(out, list) else [out]
        diff = max(float(np.max(np.abs(o - y))) for o, y in zip(out, ys))
        compile_config = json.loads(zipfile.ZipFile(path).read("config.json")).get("compile_config")
        note = ""
        if compile_config:
            with h5py.File(zipfile.ZipFile(path).open("model.weights.h5")) as w:
                saved_steps = int(w["optimizer/vars/0"][()])
            steps = int(model.optimizer.iterations.numpy())
            note = f", compiled with {type(model.optimizer).__name__} at step {steps}"
            if not model.compiled or steps != saved_steps:
                print(f"{path.name}: optimizer step {steps}, file says {saved_steps}")
                failures += 1
        for difference in object_arguments_differ(path, model):
            print(f"{path.name}: {difference}")
            failures += 1
        print(f"{path.name}: Keras's predictions differ from kiln's by {diff:.3g}{note}")
        worst = max(worst, diff)
    return 0 if worst <= 1e-5 and failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
