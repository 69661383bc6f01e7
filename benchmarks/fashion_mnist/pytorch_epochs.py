"""The work of kiln's apps/examples/{mlp,cnn}.cpp in PyTorch, for epoch-time comparisons.

Same data (the 60000 Fashion-MNIST training images from the Debian package, scaled to [0, 1],
shuffled each epoch), same models, Adam at the examples' rates (epsilon 1e-7, as Keras), batch
128, 2 threads. --dtype-policy mixed_bfloat16 runs the forward and backward under
torch.autocast("cpu", dtype=torch.bfloat16), float32 weights and optimizer, as kiln's policy.
Prints "epoch seconds: ..." like the kiln examples, and the test accuracy. Needs torch (pip install torch); kiln never does.
"""
import argparse
import gzip
import os
import time

import numpy as np
import torch
from torch import nn


def load_split(data_dir, split):
    with gzip.open(os.path.join(data_dir, f"{split}-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(os.path.join(data_dir, f"{split}-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return torch.from_numpy(images.astype(np.float32) / 255.0), torch.from_numpy(labels.astype(np.int64))


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256),
                         nn.ReLU(), nn.Linear(256, 10))


def cnn():
    return nn.Sequential(nn.Unflatten(1, (1, 28)), nn.Conv2d(1, 32, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 5 * 5, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "cnn"], required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--dtype-policy", choices=["float32", "mixed_bfloat16"], default="float32")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)

    train_x, train_y = load_split(args.data, "train")
    test_x, test_y = load_split(args.data, "t10k")
    model = {"mlp": mlp, "cnn": cnn}[args.model]()
    learning_rate = {"mlp": 5e-4, "cnn": 1e-3}[args.model]  # the examples' defaults
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    autocast = torch.autocast("cpu", dtype=torch.bfloat16,
                              enabled=args.dtype_policy == "mixed_bfloat16")

    seconds = []
    for _ in range(args.epochs):
        start = time.perf_counter()
        model.train()
        order = torch.randperm(len(train_x))
        for i in range(0, len(train_x), 128):
            idx = order[i:i + 128]
            optimizer.zero_grad(set_to_none=True)
            with autocast:
                loss = loss_fn(model(train_x[idx]), train_y[idx])
            loss.backward()
            optimizer.step()
        seconds.append(time.perf_counter() - start)
    model.eval()
    with torch.no_grad(), autocast:
        correct = sum((model(test_x[i:i + 256]).argmax(1) == test_y[i:i + 256]).sum().item()
                      for i in range(0, len(test_x), 256))
    print(f"test accuracy {correct / len(test_x):.4f}")
    print("epoch seconds: " + " ".join(f"{s:.3f}" for s in seconds))


if __name__ == "__main__":
    main()
