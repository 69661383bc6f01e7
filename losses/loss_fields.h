#pragma once
// Field tables (config_fields.h) for loss options: a loss's get_config, from_config and
// unknown-key check come from one list, led by the keys every loss has, in Keras's order.
#include <string>
#include <string_view>
#include <utility>

#include "kiln/framework/core/config_fields.h"
#include "kiln/losses/loss.h"
#include "kiln/losses/reduction.h"

namespace kiln::losses {

// A reduction as a config value: its Keras name; null is Keras's None.
Reduction reduction_of(const Config& value);

// name and reduction, then `own`.
template <typename Options>
FieldTable<Options> loss_fields(FieldTable<Options> own = {}) {
  FieldTable<Options> table{
      field("name", &Options::name),
      nullable(field("reduction", &Options::reduction, reduction_of,
                     [](Reduction r) { return Config(std::string(reduction_name(r))); }))};
  table.insert(table.end(), std::make_move_iterator(own.begin()),
               std::make_move_iterator(own.end()));
  return table;
}

// The table of the losses whose config is only a name and a reduction (and of Loss's own
// get_config).
const FieldTable<LossOptions>& common_loss_fields();

// `name`, or `default_name` when empty (an options struct's name left unset).
inline std::string name_or(const std::string& name, std::string_view default_name) {
  return name.empty() ? std::string(default_name) : name;
}

}  // namespace kiln::losses
