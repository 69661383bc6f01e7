#include "kiln/losses/loss_fields.h"

#include "kiln/framework/core/error.h"

namespace kiln::losses {

Reduction reduction_of(const Config& value) {
  if (value.is_null()) return Reduction::none;
  try {
    return parse_reduction(value.as_string());
  } catch (const Error& e) {
    throw Error(value.where() + e.what());
  }
}

const FieldTable<LossOptions>& common_loss_fields() {
  static const FieldTable<LossOptions> table = loss_fields<LossOptions>();
  return table;
}

}  // namespace kiln::losses
