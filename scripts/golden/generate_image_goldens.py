#!/usr/bin/env python3
# Usage: python3 scripts/golden/generate_image_goldens.py   (needs pillow and tensorflow-cpu)
"""Writes the image fixtures of tests/datasets/image/ and their goldens.

data/: small images in every format kiln decodes, written by Pillow: PNG (RGB, RGBA, grayscale,
palette), JPEG (RGB, grayscale), GIF (two frames, interlaced)
and lossless WebP.

data/tree: a class folder tree for the directory source.

image_goldens.inc: what TensorFlow's tf.io.decode_image(channels=c, expand_animations=False)
gives for each file and channel count it accepts; and tf.image.resize (bilinear, nearest,
bicubic, area, lanczos3, lanczos5) and keras.ops.image.resize(crop_to_aspect_ratio=True) of a
patterned image to several sizes, which image_dataset_from_directory uses; the files Keras's
index_directory lists for data/tree, in its shuffled order; and numpy's RandomState shuffles, which kiln repeats."""
import io
import pathlib

import numpy as np
import tensorflow as tf
import keras
from PIL import Image

HERE = pathlib.Path(__file__).resolve().parents[2] / "tests" / "datasets" / "image"
DATA = HERE / "data"


def pattern(height, width, channels):
    i = np.arange(height * width * channels)
    return ((i * 37 + 11) % 256).astype(np.uint8).reshape(height, width, channels)


def write_fixtures():
    DATA.mkdir(parents=True, exist_ok=True)
    rgb = pattern(5, 6, 3)
    Image.fromarray(rgb).save(DATA / "rgb.png")
    Image.fromarray(pattern(5, 6, 4)).save(DATA / "rgba.png")
    Image.fromarray(pattern(5, 6, 1)[:, :, 0]).save(DATA / "gray.png")
    Image.fromarray(rgb).quantize(colors=16).save(DATA / "palette.png")
    Image.fromarray(pattern(16, 16, 3)).save(DATA / "rgb.jpg", quality=90)
    Image.fromarray(pattern(16, 16, 1)[:, :, 0]).save(DATA / "gray.jpg", quality=90)
    Image.fromarray(rgb).save(DATA / "rgb.webp", lossless=True)
    Image.fromarray(rgb).save(DATA / "rgb.bmp")
    Image.fromarray(pattern(5, 6, 4)).save(DATA / "rgba.bmp")
    Image.fromarray(rgb).quantize(colors=16).save(DATA / "palette.bmp")
    first = Image.fromarray(pattern(9, 7, 3)).quantize(colors=32)
    second = Image.fromarray(pattern(9, 7, 3)[::-1].copy()).quantize(colors=32)
    first.save(DATA / "frames.gif", save_all=True, append_images=[second], interlace=True)
    (DATA / "not_an_image.jpg").write_bytes(b"plain text in a .jpg file\n")
    jpeg = (DATA / "rgb.jpg").read_bytes()
    (DATA / "truncated.jpg").write_bytes(jpeg[: len(jpeg) // 2])


def write_tree():
    """A class folder tree: nested folders, an upper-case extension, a text file, a hidden
    folder, and an image at the top, outside every class."""
    tree = DATA / "tree"
    files = {"cats/a.png": "rgb.png", "cats/B.JPG": "rgb.jpg", "cats/nested/c.gif": "frames.gif",
             "dogs/d.png": "gray.png", "dogs/e.webp": "rgb.webp", "dogs/z_old/f.png": "rgba.png",
             ".hidden/x.png": "rgb.png", "birds/g.jpg": "gray.jpg", "top.png": "rgb.png"}
    for name, source in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_bytes((DATA / source).read_bytes())
    (tree / "cats" / "notes.txt").write_text("not an image\n")


def tree_goldens():
    from keras.src.utils import dataset_utils
    tree = DATA / "tree"
    formats = (".bmp", ".gif", ".jpeg", ".jpg", ".png", ".webp")
    paths, labels, class_names = dataset_utils.index_directory(
        str(tree), "inferred", formats=formats, shuffle=True, seed=7, verbose=False)
    rows = [f'    {{"{pathlib.Path(p).relative_to(tree)}", {int(l)}}},'
            for p, l in zip(paths, labels)]
    names = ", ".join(f'"{n}"' for n in class_names)
    return names, rows


def shuffle_goldens():
    rows = []
    for seed, n in [(1337, 10), (0, 7), (42, 100), (7, 1)]:
        items = list(range(n))
        np.random.RandomState(seed).shuffle(items)
        rows.append(f"    {{{seed}, {c_list(items, str)}}},")
    return rows


def c_list(values, fmt):
    return "{" + ", ".join(fmt(v) for v in values) + "}"


def decode_goldens():
    rows = []
    for path in sorted(DATA.iterdir()):
        if path.name in ("not_an_image.jpg", "truncated.jpg"):
            continue
        for channels in (1, 3, 4):
            if path.name == "palette.png" and channels == 4:
                # TensorFlow fills the alpha of a 4-bit palette with 15 (its 0xff filler cut to
                # the palette's depth); kiln makes it opaque (255), as for any image without alpha.
                continue
            if path.name == "palette.bmp":
                # TensorFlow reads an 8-bit BMP's palette indices as gray levels, ignoring its
                # color table; kiln gives the colors, as Pillow does.
                if channels == 1:
                    continue
                image = np.asarray(Image.open(path).convert("RGB" if channels == 3 else "RGBA"))
                h, w, c = image.shape
                rows.append(f'    {{"{path.name}", {channels}, {h}, {w}, '
                            f'{c_list(image.reshape(-1), str)}}},')
                continue
            try:
                image = tf.io.decode_image(path.read_bytes(), channels=channels,
                                           expand_animations=False).numpy()
            except Exception:  # a channel count TensorFlow refuses for the format
                continue
            h, w, c = image.shape
            rows.append(f'    {{"{path.name}", {channels}, {h}, {w}, '
                        f'{c_list(image.reshape(-1), str)}}},')
    return rows


def resize_goldens():
    rows = []
    image = pattern(5, 7, 2).astype(np.float32)
    for (h, w) in [(3, 4), (8, 11), (5, 7), (1, 1), (10, 3)]:
        for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
            out = tf.image.resize(image, (h, w), method=method).numpy()
            rows.append(f'    {{{h}, {w}, "{method}", false, {c_list(out.reshape(-1), repr_float)}}},')
            cropped = keras.ops.convert_to_numpy(keras.ops.image.resize(
                image, (h, w), interpolation=method, crop_to_aspect_ratio=True))
            rows.append(f'    {{{h}, {w}, "{method}", true, '
                        f'{c_list(cropped.reshape(-1), repr_float)}}},')
    return rows


def repr_float(v):
    return f"{float(v)!r}f"


def main():
    write_fixtures()
    write_tree()
    lines = ["// Generated by scripts/golden/generate_image_goldens.py (TensorFlow " + tf.__version__
             + ", Keras " + keras.__version__ + "); do not edit.",
             "// Decoded fixtures: file, channels asked, height, width, pixels.",
             "const std::vector<DecodeGolden> kDecodeGoldens{"]
    lines += decode_goldens()
    lines += ["};", "// Resizes of pattern(5, 7, 2): height, width, method, crop_to_aspect_ratio, "
              "values.", "const std::vector<ResizeGolden> kResizeGoldens{"]
    lines += resize_goldens()
    names, tree_rows = tree_goldens()
    lines += ["};", "// Keras's index_directory(data/tree, shuffle=True, seed=7): path, label.",
              f"const std::vector<std::string> kTreeClassNames{{{names}}};",
              "const std::vector<std::pair<std::string, int>> kTreeFiles{"]
    lines += tree_rows
    lines += ["};", "// numpy.random.RandomState(seed).shuffle(list(range(n))): seed, result.",
              "const std::vector<std::pair<uint32_t, std::vector<int>>> kNumpyShuffles{"]
    lines += shuffle_goldens()
    lines += ["};", ""]
    (HERE / "image_goldens.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
