// libFuzzer target: any bytes as a run file. Reading may fail with kiln::Error (a clear message),
// never crash, hang or leak; a document that reads must survive a YAML round trip and a --set.
// The expansion bound is lowered so inputs that reach it (seeds/yaml/billion_laughs.yaml) end in
// milliseconds under the sanitizers.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "kiln/configs/yaml_config.h"
#include "kiln/framework/core/error.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("KILN_YAML_MAX_VALUES", "20000", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    kiln::Config c = kiln::configs::parse_yaml(text, "fuzz.yaml");
    const kiln::Config again = kiln::configs::parse_yaml(kiln::configs::to_yaml(c), "again.yaml");
    // Equal, or (NaN never equals itself) printing the same.
    if (!(again == c) && again.to_json() != c.to_json()) __builtin_trap();
    kiln::configs::apply_override(c, "training.epochs=3");
  } catch (const kiln::Error&) {
  }
  return 0;
}
