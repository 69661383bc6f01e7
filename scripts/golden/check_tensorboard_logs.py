#!/usr/bin/env python3
# Usage:
#   build/apps/kiln train configs/fashion_mnist_mlp.yaml --set training.epochs=2
#   python3 scripts/golden/check_tensorboard_logs.py runs/fashion_mnist_mlp
"""Reads the TensorBoard logs of a kiln run (<run>/logs) with TensorBoard's own reader
(EventAccumulator, pip tensorboard) and checks them against the run's log.csv: one epoch_<name>
scalar per epoch in train/ for the loss, each metric and the learning rate, and in validation/ for
the validation loss and metrics (val_ stripped), equal to log.csv's values; a histogram of each
weight per epoch (histogram_freq 1); the traced train step's graph. Exits 1 on any mismatch."""
import csv
import pathlib
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    return acc


def main(run_dir):
    run = pathlib.Path(run_dir)
    with open(run / "log.csv") as f:
        rows = list(csv.DictReader(f))
    train, validation = load(run / "logs/train"), load(run / "logs/validation")
    problems = []
    for key in rows[0]:
        if key == "epoch":
            continue
        acc, tag = (validation, "epoch_" + key[4:]) if key.startswith("val_") else (train, "epoch_" + key)
        if tag not in acc.Tags()["scalars"]:
            problems.append(f"no scalar {tag}")
            continue
        events = acc.Scalars(tag)
        got = [e.value for e in events]
        want = [float(r[key]) for r in rows]
        steps = [e.step for e in events]
        if steps != list(range(len(rows))) or any(abs(g - w) > 1e-5 * (1 + abs(w)) for g, w in zip(got, want)):
            problems.append(f"{tag}: {got} at steps {steps}, log.csv has {want}")
        print(f"{tag}: {len(events)} epochs, last {got[-1]:.4f} (log.csv {want[-1]:.4f})")
    histograms = train.Tags()["histograms"]
    print(f"histograms: {len(histograms)} ({', '.join(histograms[:4])}, ...)")
    for tag in histograms:
        if len(train.Histograms(tag)) != len(rows):
            problems.append(f"{tag}: {len(train.Histograms(tag))} histograms for {len(rows)} epochs")
    if not histograms:
        problems.append("no histograms")
    if "epoch_learning_rate" not in train.Tags()["scalars"]:
        problems.append("no learning rate")
    graph = train.Graph()
    print(f"graph: {len(graph.node)} nodes, ops {sorted({n.op for n in graph.node})[:8]} ...")
    if len(graph.node) < 10:
        problems.append("no train step graph")
    for p in problems:
        print("MISMATCH:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
