#!/usr/bin/env python3
"""The scaling model of docs/distributed.md: expected data-parallel efficiency of kiln's bucketed,
overlapped gradient all-reduce for the reference models and a ResNet-50-sized one, on 2, 8 and 64
GPUs over NVLink and over 100 Gb/s links, and the same model checked against the figures measured
on the development machine (2 CPU processes, benchmarks/distributed/run.sh).

An all-reduce of S bytes over n ranks takes the faster of a ring, 2(n-1) steps of latency a plus
2(n-1)/n * S / B, and a tree (as NCCL picks for small messages), 2 log2(n) steps plus 2 S / B.
Gradients come out at an even rate over backward (last layer first) and fill buckets of 25 MB;
each bucket's all-reduce starts when its last gradient exists and they run one after another.
What is left of them when backward ends is exposed; so are the forward pass's small all-reduces
(the loss's global divisor and the metrics' updates). efficiency = step / (step + exposed).
Usage: scaling_model.py  (prints Markdown tables)
"""
import math

BUCKET = 25 << 20

# Parameters (float32 gradients): the three reference configs and ResNet-50.
MODELS = {
    "fashion_mnist_mlp": 235_146,
    "fashion_mnist_cnn": 225_034,
    "fortunes_langid_lstm": 32_198,
    "ResNet-50": 25_557_032,
}
# One replica's step on an H100 (seconds) and the part of it that is backward. The reference
# models are small enough to be bound by kernel launches; ResNet-50 at 64 images per GPU in
# float32 runs near 1000 images/s. Assumptions until benchmarks/gpu/step_time measures them.
STEP = {
    "fashion_mnist_mlp": (0.5e-3, 0.6),
    "fashion_mnist_cnn": (1.0e-3, 0.6),
    "fortunes_langid_lstm": (5.0e-3, 0.6),
    "ResNet-50": (64e-3, 0.65),
}
# Links: all-reduce bus bandwidth (bytes/s) and latency per ring step (s).
LINKS = {"NVLink": (360e9, 5e-6), "100 Gb/s": (11e9, 10e-6)}
FORWARD_COLLECTIVES = 2  # the loss divisor and the metric updates: a few bytes each


def all_reduce_time(size, ranks, bandwidth, latency):
    ring_time = 2 * (ranks - 1) * latency + 2 * (ranks - 1) / ranks * size / bandwidth
    tree_time = 2 * math.ceil(math.log2(ranks)) * latency + 2 * size / bandwidth
    return min(ring_time, tree_time)


def exposed(params, ranks, bandwidth, latency, backward):
    total = 4 * params
    finish, done = 0.0, 0
    while done < total:
        size = min(BUCKET, total - done)
        done += size
        ready = backward * done / total  # when the bucket's last gradient exists
        finish = max(finish, ready) + all_reduce_time(size, ranks, bandwidth, latency)
    small = FORWARD_COLLECTIVES * all_reduce_time(8, ranks, bandwidth, latency)
    return max(0.0, finish - backward) + small


def efficiency(step, exposed_time):
    return step / (step + exposed_time)


def gpu_table():
    rows = ["| model | gradient MB | buckets | " +
            " | ".join(f"{n} GPUs {link}" for link in LINKS for n in (2, 8, 64)) + " |",
            "|---|---|---|" + "---|" * 6]
    for name, params in MODELS.items():
        step, backward_share = STEP[name]
        cells = []
        for bandwidth, latency in LINKS.values():
            for n in (2, 8, 64):
                e = exposed(params, n, bandwidth, latency, step * backward_share)
                cells.append(f"{100 * efficiency(step, e):.0f}%")
        mb = 4 * params / 2**20
        buckets = -(-4 * params // BUCKET)
        rows.append(f"| {name} | {mb:.2f} | {buckets} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def cpu_check():
    # Measured here (benchmarks/distributed/run.sh, 2 ranks, shared memory): 1 MiB all-reduces
    # in 117 us, 4 KiB in 8.1 us (through the communicator's thread); one process's CNN step of
    # 128 images takes 25.5 ms on one core (1.529 s for 60 steps).
    bandwidth, latency = 2**20 / 117e-6, 8.1e-6 / 2
    step_one = 25.5e-3
    step_two = step_one / 2  # each rank's half batch on its own core
    e = exposed(MODELS["fashion_mnist_cnn"], 2, bandwidth, latency, 0.6 * step_two)
    return (f"CNN, 2 CPU processes: exposed communication {1e6 * e:.0f} us per step, "
            f"predicted speedup {step_one / (step_two + e):.2f}x")


if __name__ == "__main__":
    print(gpu_table())
    print()
    print(cpu_check())
