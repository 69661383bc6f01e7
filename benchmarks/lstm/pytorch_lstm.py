"""PyTorch reference for lstm_epoch.cpp: LSTM(128) over Embedding(100, 64) then Linear(5), Adam,
batch 64, random token sequences of lengths uniform in 5..200, padded to each batch's longest
(and, with --packed, through pack_padded_sequence). Prints s/1000 sequences after the first
epoch."""
import argparse
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sequences", type=int, default=4000)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--packed", action="store_true")
    a = p.parse_args()
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    lengths = torch.randint(5, 201, (a.sequences,), generator=g)
    seqs = [torch.randint(1, 100, (int(n),), generator=g) for n in lengths]
    labels = torch.randint(0, 5, (a.sequences,), generator=g)

    emb = torch.nn.Embedding(100, 64, padding_idx=0)
    lstm = torch.nn.LSTM(64, 128, batch_first=True)
    head = torch.nn.Linear(128, 5)
    params = list(emb.parameters()) + list(lstm.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def epoch(order):
        for start in range(0, a.sequences, 64):
            idx = order[start:start + 64]
            batch = torch.nn.utils.rnn.pad_sequence([seqs[i] for i in idx], batch_first=True)
            lens = lengths[idx]
            x = emb(batch)
            if a.packed:
                packed = torch.nn.utils.rnn.pack_padded_sequence(
                    x, lens, batch_first=True, enforce_sorted=False)
                _, (h, _) = lstm(packed)
                last = h[-1]
            else:
                out, _ = lstm(x)
                last = out[torch.arange(len(idx)), lens - 1]
            loss = loss_fn(head(last), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()

    times = []
    for e in range(a.epochs):
        order = torch.randperm(a.sequences, generator=g)
        start = time.perf_counter()
        epoch(order)
        times.append(time.perf_counter() - start)
    later = sum(times[1:]) / len(times[1:])
    mode = "packed" if a.packed else "padded per batch"
    print(f"pytorch {mode}: first epoch {times[0]:.2f} s, "
          f"s/1000 sequences {later * 1000 / a.sequences:.3f}")


if __name__ == "__main__":
    main()
