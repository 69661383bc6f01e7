#!/usr/bin/env python3
"""Texts per second through tf.data's text pipeline, the reference for text_pipeline.cpp:
text_dataset_from_directory (batch 32, shuffled by seed 1), a TextVectorization
(max_tokens=20000, output_sequence_length=64) adapted on the texts beforehand and mapped with
AUTOTUNE, and prefetch; 2 threads. Prints each epoch as text_pipeline does.
Usage: tf_text_pipeline.py DIR [epochs]"""
import sys
import time

import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(2)
tf.config.threading.set_intra_op_parallelism_threads(2)
import keras  # noqa: E402

directory = sys.argv[1]
epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
texts = keras.utils.text_dataset_from_directory(directory, batch_size=32, seed=1, verbose=False)
vectorize = keras.layers.TextVectorization(max_tokens=20000, output_sequence_length=64)
start = time.perf_counter()
vectorize.adapt(texts.map(lambda x, y: x))
print(f"adapt: {time.perf_counter() - start:.3f} s, {vectorize.vocabulary_size()} entries")
pipeline = texts.map(lambda x, y: (vectorize(x), y),
                     num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
for epoch in range(epochs):
    start = time.perf_counter()
    count = 0
    for x, _ in pipeline:
        count += int(x.shape[0])
    seconds = time.perf_counter() - start
    print(f"epoch {epoch}: {count} texts, {seconds:.3f} s, {count / seconds:.1f} texts/s")
