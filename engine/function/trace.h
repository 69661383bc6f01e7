#pragma once
// One traced graph of a function and the concrete plans made from it.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/engine/executor/plan.h"
#include "kiln/engine/function/tensor_spec.h"
#include "kiln/engine/graph/graph.h"

namespace kiln::engine {

// Paths of the tensor leaves and the static leaves with their values, for messages.
struct ArgsDescription {
  std::vector<std::string> tensor_paths;
  std::vector<std::pair<std::string, std::string>> statics;
};

struct Trace {
  std::vector<int64_t> structure;  // the key's structure and static-value tokens
  std::vector<TensorSpec> specs;   // one per tensor leaf; dims may be unknown
  ArgsDescription description;
  std::shared_ptr<const Graph> graph;  // optimized
  std::string unoptimized_text;
  std::shared_ptr<const void> output_template;

  // "name(x: float32[?, 20], n=3) -> (float32[?, 1])"
  std::string signature(const std::string& name) const;
};

struct CachedPlan {
  const Trace* trace;
  std::vector<DType> cast_to;  // per tensor leaf; the leaf's own dtype when not cast
  bool any_cast = false;
  std::unique_ptr<Plan> plan;
};

// What a call looks like next to a trace, for retrace explanations.
struct CallSignature {
  const std::vector<int64_t>& structure;
  const std::vector<TensorMeta>& metas;
  const ArgsDescription& description;
};

// Why `call` did not reuse `nearest` and what would avoid the trace; nearest may be null.
std::string explain_retrace(const Trace* nearest, const CallSignature& call,
                            const std::string& name);
// The cached trace closest to `call` (same structure first, then fewest differing leaves).
const Trace* nearest_trace(const std::vector<std::unique_ptr<Trace>>& traces,
                           const CallSignature& call);

}  // namespace kiln::engine
