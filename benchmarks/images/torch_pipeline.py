#!/usr/bin/env python3
"""PyTorch's side of benchmarks/images/compare.sh: torchvision's ImageFolder with its JPEG
decoder (torchvision.io.decode_image), a bilinear resize to 180 x 180 (no antialiasing, as
tf.image.resize), a random horizontal flip and float32 conversion per image, batched by 32 in a
DataLoader with 2 worker processes. Prints the seconds and images per second of each epoch.
Usage: torch_pipeline.py DIR [epochs]   (needs torch and torchvision)"""
import sys
import time

import torch
from torchvision import datasets, io, transforms

torch.set_num_threads(1)


def load(path):
    return io.decode_image(path, mode=io.ImageReadMode.RGB)


transform = transforms.Compose([
    transforms.Resize((180, 180), antialias=False),
    transforms.RandomHorizontalFlip(),
    transforms.ConvertImageDtype(torch.float32),
])


def main():
    directory = sys.argv[1]
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    folder = datasets.ImageFolder(directory, transform=transform, loader=load)
    loader = torch.utils.data.DataLoader(folder, batch_size=32, shuffle=True, num_workers=2,
                                         persistent_workers=True, prefetch_factor=4)
    for epoch in range(epochs):
        start = time.perf_counter()
        images = sum(int(x.shape[0]) for x, _ in loader)
        seconds = time.perf_counter() - start
        print(f"epoch {epoch}: {images} images, {seconds:.3f} s, {images / seconds:.1f} images/s")


if __name__ == "__main__":
    main()
