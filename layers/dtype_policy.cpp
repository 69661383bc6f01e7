#include "kiln/layers/dtype_policy.h"

#include <array>
#include <mutex>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/suggest.h"

namespace kiln::layers {
namespace {

const std::array<DTypePolicy, 7>& known_policies() {
  static const std::array<DTypePolicy, 7> policies{{
      {"float32", DType::f32, DType::f32},
      {"float64", DType::f64, DType::f64},
      {"float16", DType::f16, DType::f16},
      {"bfloat16", DType::bf16, DType::bf16},
      {"mixed_float16", DType::f16, DType::f32},
      {"mixed_bfloat16", DType::bf16, DType::f32},
      // Keras's for layers that output integers (Hashing's bins).
      {"int64", DType::i64, DType::i64},
  }};
  return policies;
}

std::mutex& policy_mutex() {
  static std::mutex m;
  return m;
}

DTypePolicy& global_slot() {
  static DTypePolicy policy;
  return policy;
}

}  // namespace

DTypePolicy DTypePolicy::from_name(std::string_view name) {
  std::vector<std::string> names;
  for (const DTypePolicy& p : known_policies()) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  const std::string hint = did_you_mean(name, names);
  throw Error("unknown dtype policy '" + std::string(name) + "'" +
              (hint.empty() ? "" : " (" + hint + ")"));
}

void set_global_policy(std::string_view name) {
  DTypePolicy policy = DTypePolicy::from_name(name);
  std::lock_guard lock(policy_mutex());
  global_slot() = std::move(policy);
}

const DTypePolicy& global_policy() {
  std::lock_guard lock(policy_mutex());
  return global_slot();
}

}  // namespace kiln::layers
