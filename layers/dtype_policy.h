#pragma once
// Keras dtype policies: a layer computes in `compute` and keeps its weights in `variable`.
// "mixed_float16" / "mixed_bfloat16" compute in half precision with float32 weights, so updates
// do not lose small steps; losses are computed in float32 regardless.
#include <string>
#include <string_view>

#include "kiln/framework/core/dtype.h"

namespace kiln::layers {

struct DTypePolicy {
  std::string name = "float32";
  DType compute = DType::f32;
  DType variable = DType::f32;

  // "float32", "float64", "float16", "bfloat16", "mixed_float16", "mixed_bfloat16"; unknown names
  // are an error with the closest known names.
  static DTypePolicy from_name(std::string_view name);
  bool operator==(const DTypePolicy&) const = default;
};

// The policy layers get when their constructor names none (keras.config.set_dtype_policy).
void set_global_policy(std::string_view name);
const DTypePolicy& global_policy();

}  // namespace kiln::layers
