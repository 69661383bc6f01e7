#!/usr/bin/env python3
# Usage: pip install tensorflow-cpu && python3 scripts/golden/generate_text_goldens.py
"""Writes tests/layers/preprocessing/text_goldens.inc: Keras's TextVectorization, adapted on a
small corpus or given a vocabulary, in each output mode, standardization and split, with
ngrams; StringLookup over tokens, with and without a mask token, in each output mode, with
several OOV indices (hashed, salted or not), and inverting indices to strings; and Hashing
(FarmHash's Fingerprint64 buckets, SipHash's with a salt), of strings and of numbers, with and
without a mask value: each
case's Keras config as JSON (which kiln reads back through its layer registry), the strings
adapt saw and their shape, the input strings and their shape, the vocabulary afterwards, and
the output.

Keras (with TensorFlow) is the independent reference, needed only to regenerate the file.
"""
import json
import pathlib

import keras
import numpy as np
import tensorflow as tf

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests/layers/preprocessing/text_goldens.inc"

# Upper case, ASCII punctuation, non-ASCII letters (which tf.strings.lower keeps), tabs and runs
# of spaces, and words of equal counts (Keras orders ties by the words, highest first).
CORPUS = [
    "The cat sat on the mat.",
    "THE DOG ate the cat's dinner!",
    "A dog, a cat\tand  a bird: friends?",
    "Ärger über die Straße, Ärger!",
    "zebra yak xenops",
]
INPUTS = [
    "the cat and the dog",
    "Unknown words, the BIRD.",
    "",
    "Ärger ärger STRAßE",
]


TOKENS = [["red", "green", "red"], ["blue", "red", ""], ["green", "green", "teal"],
          ["red", "blue", "blue"], ["", "red", "gold"], ["gold", "red", "green"]]
LOOKUP_INPUTS = [["red", "mauve", "green"], ["", "blue", "red"], ["gold", "gold", "teal"],
                 ["plum", "", "red"]]


def lookup_cases():
    """(name, layer, adapt on TOKENS?, input: LOOKUP_INPUTS or its first column)."""
    SL = keras.layers.StringLookup
    return [
        ("lookup_int", SL(), True, False),
        ("lookup_int_masked", SL(mask_token=""), True, False),
        ("lookup_one_hot", SL(output_mode="one_hot"), True, True),
        ("lookup_multi_hot", SL(output_mode="multi_hot"), True, False),
        ("lookup_multi_hot_masked", SL(output_mode="multi_hot", mask_token=""), True, False),
        ("lookup_count_padded", SL(output_mode="count", max_tokens=8, pad_to_max_tokens=True),
         True, False),
        ("lookup_count_max_tokens", SL(output_mode="count", max_tokens=4), True, False),
        ("lookup_tf_idf", SL(output_mode="tf_idf"), True, False),
        ("lookup_given_no_oov", SL(vocabulary=["red", "green", "blue", "gold", "teal", "mauve",
                                               "plum", ""], num_oov_indices=0), False, False),
        ("lookup_given_oov_token", SL(vocabulary=["red", "blue"], oov_token="?",
                                      output_mode="multi_hot"), False, False),
        ("lookup_oov_buckets", SL(num_oov_indices=3), True, False),
        ("lookup_oov_buckets_masked_salted", SL(num_oov_indices=2, mask_token="", salt=[11, 42]),
         True, False),
        ("lookup_oov_buckets_tf_idf", SL(num_oov_indices=2, output_mode="tf_idf"), True, False),
    ]


def invert_cases():
    """(name, layer inverting indices to strings)."""
    SL = keras.layers.StringLookup
    return [
        ("invert", SL(vocabulary=["red", "green", "blue"], invert=True)),
        ("invert_masked_oov_buckets", SL(vocabulary=["red", "green", "blue"], mask_token="",
                                         num_oov_indices=2, oov_token="?", invert=True)),
    ]


def number_hashing_cases():
    """(name, layer, input: an int64 or float32 array): Keras hashes numbers' decimal text."""
    H = keras.layers.Hashing
    ints = np.array([[12, -3, 1138], [0, 7, 99999999999]], dtype=np.int64)
    return [
        ("hashing_ints", H(num_bins=7), ints),
        ("hashing_ints_masked", H(num_bins=5, mask_value=0), ints),
        ("hashing_floats_salted_multi_hot", H(num_bins=6, salt=[1, 2], output_mode="multi_hot"),
         np.array([[1.7, -2.2, 3.0], [0.5, 41.9, -0.5]], dtype=np.float32)),
    ]


# Indices to invert: the mask and OOV indices, terms, and indices past the vocabulary.
INVERT_INPUTS = [[0, 1, 2, 3], [4, 5, 17, 1]]


def hashing_cases():
    """(name, layer, input: LOOKUP_INPUTS, its first column, or INPUTS)."""
    H = keras.layers.Hashing
    return [
        ("hashing_int", H(num_bins=7), "rows"),
        ("hashing_masked", H(num_bins=5, mask_value=""), "rows"),
        ("hashing_one_hot", H(num_bins=4, output_mode="one_hot"), "column"),
        ("hashing_multi_hot", H(num_bins=6, output_mode="multi_hot"), "rows"),
        ("hashing_count_masked", H(num_bins=6, output_mode="count", mask_value="red"), "rows"),
        ("hashing_texts", H(num_bins=1000003), "texts"),
        ("hashing_salted", H(num_bins=7, salt=133), "rows"),
        ("hashing_salted_pair_masked", H(num_bins=9, salt=[5, 2**40 + 3], mask_value=""),
         "texts"),
    ]


def cases():
    """(name, layer, adapt on CORPUS?, input shape: (4,) or (4, 1))."""
    L = keras.layers
    TV = L.TextVectorization
    return [
        ("int_adapted", TV(), True, (4,)),
        ("int_sequence_length", TV(output_sequence_length=3), True, (4, 1)),
        ("int_max_tokens", TV(max_tokens=7, output_sequence_length=6), True, (4,)),
        ("multi_hot", TV(output_mode="multi_hot"), True, (4,)),
        ("multi_hot_padded", TV(max_tokens=12, output_mode="multi_hot", pad_to_max_tokens=True),
         True, (4,)),
        ("count_bigrams", TV(output_mode="count", ngrams=2), True, (4,)),
        ("count_widths", TV(output_mode="count", ngrams=(2, 3), max_tokens=10), True, (4,)),
        ("tf_idf", TV(output_mode="tf_idf"), True, (4,)),
        ("tf_idf_max_tokens", TV(output_mode="tf_idf", max_tokens=8, pad_to_max_tokens=True),
         True, (4,)),
        ("lower_only", TV(standardize="lower", output_sequence_length=7), True, (4,)),
        ("strip_only", TV(standardize="strip_punctuation"), True, (4,)),
        ("characters", TV(split="character", standardize=None, output_sequence_length=12),
         True, (4,)),
        ("whole_strings", TV(split=None, standardize="lower", output_mode="multi_hot"), True,
         (4, 1)),
        ("given_vocabulary", TV(vocabulary=["the", "cat", "dog", "ärger"],
                                output_sequence_length=5), False, (4,)),
        ("given_tf_idf", TV(vocabulary=["the", "cat", "bird"], idf_weights=[0.5, 1.25, 2.0],
                            output_mode="tf_idf"), False, (4,)),
    ]


def cpp_string(s):
    """A C++ string literal of s's UTF-8 bytes, non-printable and non-ASCII bytes in octal."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def strings(values):
    return "{" + ", ".join(cpp_string(v) for v in values) + "}"


def numbers(values):
    return "{" + ", ".join(repr(float(v)) if not float(v).is_integer() else str(int(v))
                           for v in values) + "}"


def case_head(name, layer):
    """A case's first lines: its name and the layer's Keras config as JSON."""
    config = json.dumps(keras.saving.serialize_keras_object(layer))
    return [f"    {{{cpp_string(name)},", f"     R\"json({config})json\","]


def main():
    lines = [
        "// generated by scripts/golden/generate_text_goldens.py; do not edit.",
        f"// Keras {keras.__version__}, TensorFlow {tf.__version__}.",
        "// clang-format off",
        "const std::vector<TextGolden> kTextGoldens = {",
    ]
    rows = [(name, layer, CORPUS if adapt else [], np.array(INPUTS, dtype=object).reshape(shape))
            for name, layer, adapt, shape in cases()]
    rows += [(name, layer, TOKENS if adapt else [],
              np.array([r[0] for r in LOOKUP_INPUTS] if column else LOOKUP_INPUTS, dtype=object))
             for name, layer, adapt, column in lookup_cases()]
    hashed = {"rows": LOOKUP_INPUTS, "column": [r[0] for r in LOOKUP_INPUTS], "texts": INPUTS}
    rows += [(name, layer, [], np.array(hashed[given], dtype=object))
             for name, layer, given in hashing_cases()]
    for name, layer, corpus, x in rows:
        corpus = np.array(corpus, dtype=object)
        if corpus.size:
            layer.adapt(corpus)
        y = np.asarray(layer(tf.constant(x)))
        lines += case_head(name, layer) + [
            f"     {strings(corpus.ravel())}, {numbers(corpus.shape if corpus.size else [])},",
            f"     {strings(x.ravel())}, {numbers(x.shape)},",
            f"     {strings(layer.get_vocabulary() if hasattr(layer, 'get_vocabulary') else [])},",
            f"     {numbers(y.shape)}, {numbers(y.ravel())}}},",
        ]
    lines += ["};", "", "const std::vector<InvertGolden> kInvertGoldens = {"]
    for name, layer in invert_cases():
        x = np.array(INVERT_INPUTS, dtype=np.int64)
        y = np.asarray(layer(tf.constant(x))).astype(object)
        lines += case_head(name, layer) + [
            f"     {numbers(x.ravel())}, {numbers(x.shape)},",
            f"     {strings([v.decode('utf-8') for v in y.ravel()])}}},",
        ]
    lines += ["};", "", "const std::vector<NumberHashingGolden> kNumberHashingGoldens = {"]
    for name, layer, x in number_hashing_cases():
        y = np.asarray(layer(x))
        lines += case_head(name, layer) + [
            f"     {cpp_string(str(x.dtype))}, {numbers(x.ravel())}, {numbers(x.shape)},",
            f"     {numbers(y.shape)}, {numbers(y.ravel())}}},",
        ]
    lines += ["};", "// clang-format on", ""]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
