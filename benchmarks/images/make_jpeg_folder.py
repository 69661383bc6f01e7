#!/usr/bin/env python3
"""Writes a folder of photo-sized JPEGs for benchmarks/images/compare.sh: Fashion-MNIST's
training images (the Debian package dataset-fashion-mnist), 10 class folders, each image
upscaled to 320 x 240, colored with a smooth gradient, grained with noise, and saved at JPEG
quality 90: files of about the size and entropy of small photos. Needs numpy and Pillow.

Usage: make_jpeg_folder.py OUT_DIR [COUNT]   (COUNT: 3000 by default)
"""
import gzip
import pathlib
import sys

import numpy as np
from PIL import Image

IDX = pathlib.Path("/usr/share/datasets/fashion-mnist")
CLASSES = ["t-shirt_top", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker",
           "bag", "ankle_boot"]


def read_idx(name):
    data = gzip.open(IDX / name).read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    out = pathlib.Path(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    images = read_idx("train-images-idx3-ubyte.gz")
    labels = read_idx("train-labels-idx1-ubyte.gz")
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:240, 0:320] / np.array([240.0, 320.0])[:, None, None]
    for name in CLASSES:
        (out / name).mkdir(parents=True, exist_ok=True)
    for i in range(count):
        shape = np.asarray(Image.fromarray(images[i]).resize((320, 240), Image.BICUBIC), np.float32)
        tint = rng.uniform(0.2, 1.0, 3)
        background = 255 * (0.5 * yy[..., None] * tint + 0.3 * xx[..., None] * tint[::-1])
        pixels = background + shape[..., None] * tint + rng.normal(0, 8, (240, 320, 3))
        Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(
            out / CLASSES[labels[i]] / f"{i:05d}.jpg", quality=90)


if __name__ == "__main__":
    main()
