#pragma once
// Keras's save_freq, as ModelCheckpoint and BackupAndRestore read and write it: "epoch" (0 here)
// or a positive number of training batches.
#include <cstdint>
#include <string>

#include "kiln/framework/core/config_fields.h"

namespace kiln {

// The save_freq field of an options struct whose `member` holds it.
template <typename Options>
ConfigField<Options> save_freq_field(int64_t Options::*member) {
  return field(
      "save_freq", member,
      [](const Config& value) -> int64_t {
        if (value.is_string() && value.as_string() == "epoch") return 0;
        KILN_CHECK(value.is_int() && value.as_int() > 0, value.where(),
                   "save_freq must be \"epoch\" or a positive number of batches");
        return value.as_int();
      },
      [](int64_t freq) { return freq == 0 ? Config("epoch") : Config(freq); });
}

}  // namespace kiln
