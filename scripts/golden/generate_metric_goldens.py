#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_metric_goldens.py
"""Writes tests/training/metrics/metric_goldens.inc: keras.metrics streamed over three batches.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file. Each
case is a metric config (as keras.metrics.serialize writes it, so the test also reads Keras's
configs) and three batches of different sizes. The metric's result() is recorded after each
update, then after reset_state(); once without and once with the batches' sample weights.
Predictions are multiples of 1/64 and weights multiples of 1/4, exact in float32, so counts and
sums carry no rounding that depends on the summation order.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/training/metrics/metric_goldens.inc"
BATCH_SIZES = [6, 4, 9]

rng = np.random.default_rng(7)


def grid(shape, low, high, step=1 / 64):
    """Multiples of step in [low, high]."""
    return rng.integers(round(low / step), round(high / step) + 1, size=shape) * step


def probs(b, *rest):
    return grid((b, *rest), 0, 1)


def logits(b, *rest):
    return grid((b, *rest), -4, 4)


def coarse(b, *rest):
    """Multiples of 1/4: many ties, to pin down tie-breaking."""
    return grid((b, *rest), 0, 1, 1 / 4)


def binary(b, *rest):
    return rng.integers(0, 2, size=(b, *rest)).astype(np.float64)


def classes(b, n, *rest):
    return rng.integers(0, n, size=(b, *rest))


def one_hot(b, n):
    return np.eye(n)[classes(b, n)]


def weights(*shape):
    return grid(shape, 0, 2, 1 / 4)


# (case name, Keras metric, batch(b) -> (y_true, y_pred, sample_weight), integer labels)
CASES = [
    ("Mean rows [B, 3]", keras.metrics.Mean(name="mean"),
     lambda b: (np.zeros(b), logits(b, 3), weights(b)), False),
    ("Mean weights [B, 3]", keras.metrics.Mean(name="mean"),
     lambda b: (np.zeros(b), logits(b, 3), weights(b, 3)), False),
    ("Sum rows [B, 3]", keras.metrics.Sum(name="sum"),
     lambda b: (np.zeros(b), logits(b, 3), weights(b)), False),
    ("Accuracy", keras.metrics.Accuracy(name="accuracy"),
     lambda b: (classes(b, 3, 1).astype(float), classes(b, 3, 1).astype(float), weights(b)),
     False),
    ("BinaryAccuracy", keras.metrics.BinaryAccuracy(name="binary_accuracy"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("BinaryAccuracy threshold 0.7 labels [B]",
     keras.metrics.BinaryAccuracy(name="binary_accuracy", threshold=0.7),
     lambda b: (binary(b), probs(b, 1), weights(b)), False),
    ("CategoricalAccuracy", keras.metrics.CategoricalAccuracy(name="categorical_accuracy"),
     lambda b: (one_hot(b, 4), coarse(b, 4), weights(b)), False),
    ("SparseCategoricalAccuracy int [B]",
     keras.metrics.SparseCategoricalAccuracy(name="sparse_categorical_accuracy"),
     lambda b: (classes(b, 5), logits(b, 5), weights(b)), True),
    ("SparseCategoricalAccuracy float [B, 1]",
     keras.metrics.SparseCategoricalAccuracy(name="sparse_categorical_accuracy"),
     lambda b: (classes(b, 5, 1).astype(float), logits(b, 5), weights(b, 1)), False),
    ("SparseCategoricalAccuracy sequences",
     keras.metrics.SparseCategoricalAccuracy(name="sparse_categorical_accuracy"),
     lambda b: (classes(b, 4, 3), logits(b, 3, 4), weights(b, 3)), True),
    ("TopKCategoricalAccuracy k 5",
     keras.metrics.TopKCategoricalAccuracy(name="top_k_categorical_accuracy"),
     lambda b: (one_hot(b, 8), logits(b, 8), weights(b)), False),
    ("TopKCategoricalAccuracy k 2 ties",
     keras.metrics.TopKCategoricalAccuracy(k=2, name="top_k_categorical_accuracy"),
     lambda b: (one_hot(b, 6), coarse(b, 6), weights(b)), False),
    ("SparseTopKCategoricalAccuracy k 5",
     keras.metrics.SparseTopKCategoricalAccuracy(name="sparse_top_k_categorical_accuracy"),
     lambda b: (classes(b, 8), logits(b, 8), weights(b)), True),
    ("SparseTopKCategoricalAccuracy k 2 ties [B, 1]",
     keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="sparse_top_k_categorical_accuracy"),
     lambda b: (classes(b, 6, 1), coarse(b, 6), weights(b)), True),
    ("Precision", keras.metrics.Precision(name="precision"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("Precision threshold 0.3 class_id 1",
     keras.metrics.Precision(thresholds=0.3, class_id=1, name="precision"),
     lambda b: (binary(b, 3), probs(b, 3), weights(b)), False),
    ("Precision top_k 2", keras.metrics.Precision(top_k=2, name="precision"),
     lambda b: (binary(b, 4), coarse(b, 4), weights(b)), False),
    ("Recall", keras.metrics.Recall(name="recall"),
     lambda b: (binary(b), probs(b), weights(b)), False),
    ("Recall threshold 0.6 class_id 2",
     keras.metrics.Recall(thresholds=0.6, class_id=2, name="recall"),
     lambda b: (binary(b, 3), probs(b, 3), weights(b)), False),
    ("Recall top_k 1", keras.metrics.Recall(top_k=1, name="recall"),
     lambda b: (binary(b, 4), coarse(b, 4), weights(b, 4)), False),
    ("AUC ROC", keras.metrics.AUC(name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC ROC minoring", keras.metrics.AUC(summation_method="minoring", name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC ROC majoring 10 thresholds",
     keras.metrics.AUC(num_thresholds=10, summation_method="majoring", name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC PR", keras.metrics.AUC(curve="PR", name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC PR majoring", keras.metrics.AUC(curve="PR", summation_method="majoring", name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC PRGAIN", keras.metrics.AUC(curve="PRGAIN", name="auc"),
     lambda b: (binary(b, 1), probs(b, 1), weights(b)), False),
    ("AUC from_logits", keras.metrics.AUC(from_logits=True, name="auc"),
     lambda b: (binary(b, 1), logits(b, 1), weights(b)), False),
    ("AUC uneven thresholds",
     keras.metrics.AUC(thresholds=[0.8, 0.1, 0.35], name="auc"),
     lambda b: (binary(b, 1), grid((b, 1), -0.5, 1.5), weights(b)), False),
    ("AUC even thresholds clip",
     keras.metrics.AUC(thresholds=[0.25, 0.5, 0.75], name="auc"),
     lambda b: (binary(b, 1), grid((b, 1), -0.5, 1.5), weights(b)), False),
    ("AUC label_weights", keras.metrics.AUC(label_weights=[1.0, 0.5, 2.0], name="auc"),
     lambda b: (binary(b, 3), probs(b, 3), weights(b)), False),
    ("AUC multi_label", keras.metrics.AUC(multi_label=True, num_labels=3, name="auc"),
     lambda b: (binary(b, 3), probs(b, 3), weights(b)), False),
    ("AUC multi_label PR label_weights",
     keras.metrics.AUC(multi_label=True, num_labels=3, curve="PR", label_weights=[2.0, 1.0, 0.5],
                       name="auc"),
     lambda b: (binary(b, 3), probs(b, 3), weights(b, 3)), False),
    ("MeanAbsoluteError", keras.metrics.MeanAbsoluteError(name="mean_absolute_error"),
     lambda b: (logits(b, 3), logits(b, 3), weights(b)), False),
    ("MeanSquaredError", keras.metrics.MeanSquaredError(name="mean_squared_error"),
     lambda b: (logits(b, 3), logits(b, 3), weights(b)), False),
    ("RootMeanSquaredError", keras.metrics.RootMeanSquaredError(name="root_mean_squared_error"),
     lambda b: (logits(b, 3), logits(b, 3), weights(b)), False),
    ("MeanMetricWrapper mean_absolute_error",
     keras.metrics.MeanMetricWrapper(fn=keras.metrics.mean_absolute_error, name="mae_wrapper"),
     lambda b: (logits(b, 2), logits(b, 2), weights(b)), False),
]

REDUCTIONS = (keras.metrics.Mean, keras.metrics.Sum)


def jsonable(value):
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "numpy") or isinstance(value, np.ndarray):
        return np.asarray(value).tolist()
    return value


def update(metric, y_true, y_pred, weight, int_labels):
    if type(metric) in REDUCTIONS:  # update_state(values, sample_weight)
        metric.update_state(tf.constant(y_pred, tf.float32), sample_weight=weight)
        return
    y_true = tf.constant(y_true, tf.int64 if int_labels else tf.float32)
    metric.update_state(y_true, tf.constant(y_pred, tf.float32), sample_weight=weight)


def run(metric, batches, int_labels, weighted):
    results = []
    for y_true, y_pred, weight in batches:
        w = tf.constant(weight, tf.float32) if weighted else None
        update(metric, y_true, y_pred, w, int_labels)
        results.append(float(metric.result()))
    metric.reset_state()
    results.append(float(metric.result()))
    return results


def fmt(array):
    return "{" + ", ".join(repr(float(v)) for v in np.asarray(array).ravel()) + "}"


def shape(array):
    return "{" + ", ".join(str(d) for d in np.shape(array)) + "}"


def main():
    lines = ["// generated by scripts/golden/generate_metric_goldens.py; do not edit.",
             f"// Keras {keras.__version__}, TensorFlow {tf.__version__}, float32.",
             "// clang-format off",
             "const std::vector<MetricGolden> kMetricGoldens = {"]
    for name, metric, make_batch, int_labels in CASES:
        batches = [make_batch(b) for b in BATCH_SIZES]
        config = json.dumps(jsonable(keras.metrics.serialize(metric)))
        unweighted = run(metric, batches, int_labels, weighted=False)
        weighted = run(metric, batches, int_labels, weighted=True)
        lines.append(f'    {{"{name}",\n     R"json({config})json",\n'
                     f'     {"true" if int_labels else "false"},\n     {{')
        for y_true, y_pred, weight in batches:
            lines.append(f"      {{{shape(y_true)}, {fmt(y_true)},\n"
                         f"       {shape(y_pred)}, {fmt(y_pred)},\n"
                         f"       {shape(weight)}, {fmt(weight)}}},")
        lines.append(f"     }},\n     {fmt(unweighted)},\n     {fmt(weighted)}}},")
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
