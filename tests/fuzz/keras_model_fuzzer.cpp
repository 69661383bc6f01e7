// libFuzzer target for kiln::load_model: any bytes as the config.json of a .keras file whose zip
// and model.weights.h5 are well formed (the weights of tests/training/saving/data's mlp fixture;
// libhdf5 is not fed corrupt bytes, as in checkpoint_fuzzer.cpp). Rebuilding the model from the
// config, compiling it and loading the weights may fail with kiln::Error, never crash, hang or
// leak. scripts/fuzz seeds it with the Keras fixtures' configs.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "kiln/framework/core/error.h"
#include "kiln/training/model/keras_file.h"
#include "kiln/training/model/model.h"
#include "kiln/training/saving/keras_archive.h"

namespace {

const std::string& fixture_weights() {
  static const std::string weights = [] {
    const std::string path =
        std::string(KILN_TESTS_DIR) + "/training/saving/data/keras_models/mlp.keras";
    return kiln::saving::archive_entry(kiln::saving::read_zip_archive(path), "model.weights.h5",
                                       path);
  }();
  return weights;
}

// The scratch .keras file each input is written to, removed when the fuzzer exits.
struct ScratchFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("keras_model_fuzz_" + std::to_string(getpid()) + ".keras"))
                         .string();
  ~ScratchFile() { std::filesystem::remove(path); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ScratchFile scratch;
  const std::string config(reinterpret_cast<const char*>(data), size);
  try {
    kiln::saving::write_zip_archive(scratch.path,
                                    {{"metadata.json", R"({"keras_version": "3.15.1"})"},
                                     {"config.json", config},
                                     {"model.weights.h5", fixture_weights()}});
    kiln::load_model(scratch.path);
  } catch (const kiln::Error&) {
  }
  return 0;
}
