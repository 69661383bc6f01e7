find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(dnnl REQUIRED CONFIG)
find_package(ZLIB REQUIRED)
# OpenMPI: the communicator of multi-process training (framework/distributed/).
find_package(MPI REQUIRED COMPONENTS C)
# HDF5 through pkg-config's imported target, which an installed kiln's config finds again by
# name: FindHDF5's C component would make its consumers enable C, and its library paths are the
# build machine's.
find_package(PkgConfig REQUIRED)
pkg_check_modules(KILN_HDF5 REQUIRED IMPORTED_TARGET hdf5)
# libzip: .keras model files are zip archives (training/saving/keras_archive.cpp).
pkg_check_modules(KILN_ZIP REQUIRED IMPORTED_TARGET libzip)
# TensorBoard event files: protobuf messages in TFRecord framing, whose checksums are CRC32C
# (ISA-L's crc32_iscsi) (training/tensorboard/).
find_package(Protobuf REQUIRED)
pkg_check_modules(KILN_ISAL REQUIRED IMPORTED_TARGET libisal)
# Image files (datasets/image/): libjpeg-turbo, libpng, libwebp, giflib and stb_image (BMP).
pkg_check_modules(KILN_IMAGE_CODECS REQUIRED IMPORTED_TARGET libjpeg libpng libwebp libgif stb)
# FarmHash's Fingerprint64, which Keras's Hashing layer buckets strings by
# (layers/preprocessing/hashing.cpp). The package ships no pkg-config file.
find_path(KILN_FARMHASH_INCLUDE_DIR farmhash.h REQUIRED)
find_library(KILN_FARMHASH_LIBRARY farmhash REQUIRED)
# HighwayHash's SipHash-2-4 (header only), which tf.strings.to_hash_bucket_strong keys with a
# layer's salt (Hashing, StringLookup).
find_path(KILN_HIGHWAYHASH_INCLUDE_DIR highwayhash/sip_hash.h REQUIRED)
find_package(yaml-cpp REQUIRED CONFIG)
# JSON (.keras configs, checkpoint attributes): RapidJSON reads Python's NaN and Infinity.
find_package(RapidJSON REQUIRED CONFIG)
if(KILN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(KILN_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
