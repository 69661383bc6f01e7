#!/usr/bin/env python3
"""tf.data's side of benchmarks/images/compare.sh: image_dataset_from_directory (180 x 180,
batch 32) mapped by a RandomFlip layer with AUTOTUNE and prefetched, on 2 threads. Prints the
seconds and images per second of each epoch, as image_pipeline does.
Usage: tf_data_pipeline.py DIR [epochs]   (needs tensorflow-cpu)"""
import sys
import time

import keras
import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(2)
tf.config.threading.set_intra_op_parallelism_threads(2)
directory = sys.argv[1]
epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
flip = keras.layers.RandomFlip("horizontal", seed=1)
options = tf.data.Options()
options.threading.private_threadpool_size = 2
dataset = (keras.utils.image_dataset_from_directory(directory, image_size=(180, 180),
                                                    batch_size=32, seed=1, verbose=False)
           .map(lambda x, y: (flip(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
           .prefetch(tf.data.AUTOTUNE)
           .with_options(options))
for epoch in range(epochs):
    start = time.perf_counter()
    images = sum(int(x.shape[0]) for x, _ in dataset)
    seconds = time.perf_counter() - start
    print(f"epoch {epoch}: {images} images, {seconds:.3f} s, {images / seconds:.1f} images/s")
