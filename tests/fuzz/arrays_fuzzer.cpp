// libFuzzer target: any bytes as a .npy file (mapped) or, with the first byte odd, as a .npz
// archive whose member "x" is opened; then every row is read, in slabs and one by one through
// array_dataset. Opening may fail with kiln::Error (a clear message), never crash, read past the
// mapping, hang or leak.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "kiln/datasets/arrays/array_dataset.h"
#include "kiln/datasets/arrays/array_source.h"
#include "kiln/framework/core/error.h"

namespace {

std::string scratch_path(const char* extension) {
  return "/tmp/kiln_arrays_fuzz_" + std::to_string(getpid()) + extension;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool npz = (data[0] & 1) != 0;
  const std::string path = scratch_path(npz ? ".npz" : ".npy");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  try {
    const kiln::datasets::ArraySourcePtr array =
        npz ? kiln::datasets::open_npz(path, "x") : kiln::datasets::open_npy(path);
    // Bounded: a tiny file may claim many empty rows.
    const int64_t rows = std::min<int64_t>(array->rows(), 4096);
    if (array->read(0, rows).dim(0) != rows) __builtin_trap();
    int64_t seen = 0;
    for (const kiln::datasets::Element& e : kiln::datasets::array_dataset({array}, 0, rows)) {
      if (e[0].shape() != array->row_shape()) __builtin_trap();
      ++seen;
    }
    if (seen != rows) __builtin_trap();
  } catch (const kiln::Error&) {
  }
  return 0;
}
