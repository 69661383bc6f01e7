#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, checks that the installed CMake files name no
# path of the build machine's source or build tree, then configures, builds and runs a consumer
# with the build's CMake generator (a single-configuration one, as kiln's builds use).
# Usage: install_test.sh build_dir generator
set -euo pipefail
build_dir=$(cd "$1" && pwd)
generator=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
if grep -rn -e "$build_dir" -e "$source_dir" "$scratch/prefix/lib"*/cmake/kiln; then
  echo "the installed CMake files name paths of the build machine (above)" >&2
  exit 1
fi
cmake -S "$source_dir/tests/install/consumer" -B "$scratch/build" -G "$generator" \
      -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
