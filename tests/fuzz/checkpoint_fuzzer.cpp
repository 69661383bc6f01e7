// libFuzzer target: any bytes as a weights file or checkpoint. Inspecting and loading may fail
// with kiln::Error naming the file, never crash; a failed load leaves the model unchanged.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/model/sequential.h"
#include "engine/saving/checkpoint.h"
#include "engine/saving/inspect.h"
#include "framework/core/error.h"
#include "layers/core/dense.h"
#include "layers/core/dropout.h"
#include "layers/core/input_layer.h"

namespace {

kiln::Sequential& model() {
  static kiln::Sequential m = [] {
    kiln::Sequential s({kiln::layers::Input({6}), kiln::layers::Dense(8),
                        kiln::layers::Dropout(0.5), kiln::layers::Dense(3)});
    s.compile({.optimizer = "adam", .loss = "mse"});
    return s;
  }();
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/kiln_checkpoint_fuzz_" + std::to_string(getpid()) + ".h5";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    kiln::saving::describe_file(path);
  } catch (const kiln::Error&) {
  }
  try {
    model().load_weights(path);
  } catch (const kiln::Error&) {
  }
  try {
    kiln::saving::read_checkpoint_info(path);
  } catch (const kiln::Error&) {
  }
  return 0;
}
