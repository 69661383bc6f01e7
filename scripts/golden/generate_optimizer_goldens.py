#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_optimizer_goldens.py
"""Writes tests/optimizers/optimizer_goldens.inc: Keras optimizer trajectories and schedules.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Two
float32 variables, "dense/kernel" [2, 3] and "bias" [3], start from fixed values and take ten
fixed gradients (multiples of 1/64, exact in float32). Each case records the optimizer as Keras
serializes it (the tests build theirs from that config), its variable paths in order (what a
checkpoint lists) and both variables after every step. Each schedule records its config and its
value at several steps; each optimizer's default config is recorded too.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/optimizers/optimizer_goldens.inc"
STEPS = 10
SCHEDULE_STEPS = [0, 1, 2, 3, 4, 5, 6, 8, 10, 13, 100]

optimizers = keras.optimizers
schedules = keras.optimizers.schedules
rng = np.random.default_rng(2025)


def values(shape, limit):
    return (rng.integers(-64 * limit, 64 * limit, size=shape) / 64.0).astype(np.float32)


def trajectory_cases():
    # (name, class, arguments). Rates are large (0.1) so that every option moves the variables
    # well past the tolerance.
    return [
        ("sgd", optimizers.SGD, dict(learning_rate=0.1)),
        ("sgd_momentum", optimizers.SGD, dict(learning_rate=0.1, momentum=0.9)),
        ("sgd_nesterov", optimizers.SGD, dict(learning_rate=0.1, momentum=0.9, nesterov=True)),
        ("adam", optimizers.Adam, dict(learning_rate=0.1)),
        ("adam_amsgrad", optimizers.Adam, dict(learning_rate=0.1, amsgrad=True)),
        ("adamw", optimizers.AdamW, dict(learning_rate=0.1)),
        ("rmsprop", optimizers.RMSprop, dict(learning_rate=0.1)),
        ("rmsprop_centered", optimizers.RMSprop, dict(learning_rate=0.1, centered=True)),
        ("rmsprop_momentum", optimizers.RMSprop, dict(learning_rate=0.1, momentum=0.5)),
        ("rmsprop_centered_momentum", optimizers.RMSprop,
         dict(learning_rate=0.1, rho=0.8, momentum=0.5, epsilon=1e-6, centered=True)),
        ("adagrad", optimizers.Adagrad, dict(learning_rate=0.1)),
        ("nadam", optimizers.Nadam, dict(learning_rate=0.1)),
        ("sgd_clipnorm", optimizers.SGD, dict(learning_rate=0.1, clipnorm=1.0)),
        ("adam_clipnorm", optimizers.Adam, dict(learning_rate=0.1, clipnorm=1.0)),
        ("sgd_clipvalue", optimizers.SGD, dict(learning_rate=0.1, clipvalue=0.5)),
        ("sgd_global_clipnorm", optimizers.SGD,
         dict(learning_rate=0.1, momentum=0.5, global_clipnorm=2.0)),
        ("sgd_weight_decay", optimizers.SGD, dict(learning_rate=0.1, weight_decay=0.5)),
        ("adam_weight_decay", optimizers.Adam, dict(learning_rate=0.1, weight_decay=0.1)),
        ("adam_exponential_decay", optimizers.Adam,
         dict(learning_rate=schedules.ExponentialDecay(0.1, 3, 0.5, staircase=True))),
        ("sgd_piecewise_constant_decay", optimizers.SGD,
         dict(learning_rate=schedules.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.01]))),
        ("adam_cosine_decay_warmup", optimizers.Adam,
         dict(learning_rate=schedules.CosineDecay(0.0, 6, alpha=0.1, warmup_target=0.1,
                                                  warmup_steps=3))),
        ("sgd_inverse_time_decay", optimizers.SGD,
         dict(learning_rate=schedules.InverseTimeDecay(0.1, 2, 0.5))),
        ("adamw_cosine_decay", optimizers.AdamW,
         dict(learning_rate=schedules.CosineDecay(0.1, 8), weight_decay=0.1)),
    ]


def schedule_cases():
    return [
        ("exponential_decay", schedules.ExponentialDecay(0.1, 3, 0.5)),
        ("exponential_decay_staircase", schedules.ExponentialDecay(0.1, 3, 0.5, staircase=True)),
        ("piecewise_constant_decay",
         schedules.PiecewiseConstantDecay([3, 6, 10], [0.1, 0.05, 0.01, 0.001])),
        ("cosine_decay", schedules.CosineDecay(0.1, 8, alpha=0.1)),
        ("cosine_decay_warmup",
         schedules.CosineDecay(0.0, 6, alpha=0.1, warmup_target=0.1, warmup_steps=3)),
        ("inverse_time_decay", schedules.InverseTimeDecay(0.1, 2, 0.5)),
        ("inverse_time_decay_staircase",
         schedules.InverseTimeDecay(0.1, 2, 0.5, staircase=True)),
    ]


def fmt(array):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(array).ravel()) + "}"


def fmt_rows(rows):
    return "{" + ",\n      ".join(fmt(r) for r in rows) + "}"


def json_literal(obj):
    return 'R"json(' + json.dumps(obj) + ')json"'


def strings(items):
    return "{" + ", ".join(f'"{s}"' for s in items) + "}"


def run_trajectory(name, optimizer, kernel0, bias0, kernel_grads, bias_grads):
    with keras.name_scope("dense"):
        kernel = keras.Variable(kernel0, name="kernel")
    bias = keras.Variable(bias0, name="bias")
    config = optimizers.serialize(optimizer)  # before the first step, as the tests build it
    kernels, biases = [], []
    for gk, gb in zip(kernel_grads, bias_grads):
        optimizer.apply_gradients([(tf.constant(gk), kernel), (tf.constant(gb), bias)])
        kernels.append(kernel.numpy())
        biases.append(bias.numpy())
    assert int(optimizer.iterations.numpy()) == STEPS
    paths = [v.path for v in optimizer.variables]
    return (f'    {{"{name}", {json_literal(config)},\n     {strings(paths)},\n'
            f'     {fmt_rows(kernels)},\n     {fmt_rows(biases)}}},')


def declare(kind, name, value):
    return f"inline const std::vector<{kind}> {name} = {value};"


def main():
    kernel0, bias0 = values((2, 3), 2), values((3,), 2)
    kernel_grads = [values((2, 3), 4) for _ in range(STEPS)]
    bias_grads = [values((3,), 4) for _ in range(STEPS)]
    lines = ["// generated by scripts/golden/generate_optimizer_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}, float32.",
             "// clang-format off",
             "// dense/kernel [2, 3] and bias [3], and their gradients at each step.",
             declare("double", "kInitialKernel", fmt(kernel0)),
             declare("double", "kInitialBias", fmt(bias0)),
             declare("std::vector<double>", "kKernelGradients", fmt_rows(kernel_grads)),
             declare("std::vector<double>", "kBiasGradients", fmt_rows(bias_grads)),
             "inline const std::vector<TrajectoryGolden> kTrajectoryGoldens = {"]
    for name, cls, arguments in trajectory_cases():
        optimizer = cls(name=name, **arguments)
        lines.append(run_trajectory(name, optimizer, kernel0, bias0, kernel_grads, bias_grads))
    lines += ["};", "inline const std::vector<ScheduleGolden> kScheduleGoldens = {"]
    steps = fmt(SCHEDULE_STEPS)
    for name, schedule in schedule_cases():
        rates = [float(schedule(tf.constant(s, tf.int64))) for s in SCHEDULE_STEPS]
        lines.append(f'    {{"{name}", {json_literal(schedules.serialize(schedule))},\n'
                     f'     {steps},\n     {fmt(rates)}}},')
    lines += ["};", "// Each identifier's default optimizer as Keras serializes it.",
              "inline const std::vector<DefaultConfigGolden> kDefaultConfigGoldens = {"]
    for identifier in ["sgd", "adam", "adamw", "rmsprop", "adagrad", "nadam"]:
        config = optimizers.serialize(optimizers.get(identifier))
        lines.append(f'    {{"{identifier}", {json_literal(config)}}},')
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
