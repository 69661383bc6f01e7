#!/usr/bin/env python3
# Usage:
#   KILN_KEEP_WEIGHT_FILES=/tmp/kiln_weights build/tests/engine_tests \
#       --gtest_filter='*KilnWritesKerasLayout*'
#   python3 scripts/golden/check_keras_loads_kiln_weights.py /tmp/kiln_weights
"""Has Keras load the .weights.h5 files kiln wrote for the models of tests/training/saving/data
into the same Keras models and checks that Keras then predicts what it predicted with its own
weights. Exits 1 on any difference beyond 1e-5."""
import json
import pathlib
import sys

import h5py
import keras
import numpy as np

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests/training/saving/data"


def main(kiln_dir):
    worst = 0.0
    for expected in sorted(DATA.glob("*.expected.h5")):
        name = expected.name.removesuffix(".expected.h5")
        with h5py.File(expected) as f:
            config = json.loads(f.attrs["model_config"])
            xs = [f[k][()] for k in sorted(f) if k.startswith("x")]
            ys = [f[k][()] for k in sorted(f) if k.startswith("y")]
        cls = keras.Sequential if config["class_name"] == "Sequential" else keras.Model
        model = cls.from_config(config["config"])
        model.load_weights(pathlib.Path(kiln_dir) / f"kiln_{name}.weights.h5")
        out = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        out = out if isinstance(out, list) else [out]
        diff = max(float(np.max(np.abs(o - y))) for o, y in zip(out, ys))
        print(f"{name}: Keras with kiln's weights differs from Keras's predictions by {diff:.3g}")
        worst = max(worst, diff)
    return 0 if worst <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
