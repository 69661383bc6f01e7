"""The work of step_time.cpp in PyTorch, on the same device: the Fashion-MNIST MLP and CNN and
the bucketed LSTM, Adam (epsilon 1e-7, as Keras), cross-entropy from logits, random data of the
real shapes in host memory, each batch copied to the device as a pipeline feeds it.
  python3 pytorch_steps.py --model mlp|cnn|lstm [--batch 128] [--device cuda]
                           [--mode eager|compile] [--precision float32|tf32|mixed_bfloat16]
                           [--steps 200] [--rounds 5]
--mode compile is torch.compile(mode="reduce-overhead") (CUDA graphs). float32 keeps matmuls and
convolutions off TF32 (PyTorch's default lets cuDNN use it), the work kiln's float32 does; tf32
allows it in both, as kiln's tf32. mixed_bfloat16 runs the forward and backward under
torch.autocast(bfloat16) with float32 weights, as Keras's policy.
Prints the line step_time prints, with "torch-<mode>" for the device's name. Needs torch; kiln
never does.
"""
import argparse
import os
import random
import statistics
import sys
import time

import torch
from torch import nn

# The MLP and CNN the Fashion-MNIST epoch comparison trains.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fashion_mnist"))
from pytorch_epochs import cnn, mlp  # noqa: E402


class Lstm(nn.Module):
    """Embedding(100, 64, padding 0) -> LSTM(128) over the unpadded steps -> Dense(5)."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(100, 64, padding_idx=0)
        self.lstm = nn.LSTM(64, 128, batch_first=True)
        self.dense = nn.Linear(128, 5)

    def forward(self, tokens):
        lengths = (tokens != 0).sum(1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(self.embedding(tokens), lengths,
                                                   batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.dense(h[-1])


def image_batches(steps, batch):
    generator = torch.Generator().manual_seed(7)
    x = torch.rand(steps * batch, 28, 28, generator=generator)
    y = torch.randint(0, 10, (steps * batch,), generator=generator)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, steps * batch, batch)]


def token_batches(steps, batch):
    """Lengths 5..200 bucketed at 50, 100, 150, 201, each bucket padded to its boundary - 1."""
    rng = random.Random(7)
    buckets = {49: [], 99: [], 149: [], 200: []}
    out = []
    for _ in range(steps * batch):
        length = rng.randint(5, 200)
        width = next(w for w in buckets if length <= w)
        buckets[width].append(([rng.randint(1, 99) for _ in range(length)], rng.randint(0, 4)))
        if len(buckets[width]) == batch:
            rows = buckets[width]
            tokens = torch.zeros(batch, width, dtype=torch.long)
            for r, (ids, _) in enumerate(rows):
                tokens[r, :len(ids)] = torch.tensor(ids)
            out.append((tokens, torch.tensor([label for _, label in rows])))
            buckets[width] = []
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "cnn", "lstm"], required=True)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--mode", choices=["eager", "compile"], default="eager")
    parser.add_argument("--precision", choices=["float32", "tf32", "mixed_bfloat16"],
                        default="float32")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = args.precision == "tf32"
    torch.manual_seed(1)
    device = torch.device(args.device)
    model = {"mlp": mlp, "cnn": cnn, "lstm": Lstm}[args.model]().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    batches = (token_batches if args.model == "lstm" else image_batches)(args.steps, args.batch)
    autocast = args.precision == "mixed_bfloat16"

    def step(x, y):
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.detach()

    if args.mode == "compile":
        step = torch.compile(step, mode="reduce-overhead")

    def epoch():
        start = time.perf_counter()
        loss = None
        for x, y in batches:
            loss = step(x.to(device, non_blocking=True), y.to(device, non_blocking=True))
        float(loss)  # waits for the device, as kiln's fit reads its logs
        return time.perf_counter() - start

    epoch()  # warms up (and compiles)
    seconds = sorted(epoch() for _ in range(args.rounds))
    median = statistics.median(seconds)
    print(f"{args.model} batch {args.batch} torch-{args.mode} {args.precision}: "
          f"ms/step {1000 * median / len(batches):.3f} (median of {args.rounds} epochs), "
          f"epoch s {median:.3f}")


if __name__ == "__main__":
    main()
