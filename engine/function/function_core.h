#pragma once
// The type-independent half of kiln::function: the two-level cache (traces per generalized
// signature, plans per concrete shape), tracing, boundary casts, counters and retrace warnings.
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/engine/function/function_options.h"
#include "kiln/engine/function/function_ref.h"
#include "kiln/engine/function/trace.h"

namespace kiln::engine {

// A call's arguments taken apart: the structure/static tokens (see KeyVisitor) and the tensors.
struct CallArgs {
  std::vector<int64_t> key;
  std::vector<Tensor> tensors;
};

struct TraceOutput {
  std::vector<Tensor> tensors;
  std::shared_ptr<const void> output_template;  // the result with its tensors still symbolic
};

class FunctionCore {
 public:
  // Runs the user's callable on the given symbolic arguments (in tensor-leaf order).
  using TraceFn = FunctionRef<TraceOutput(std::span<const Tensor>)>;
  using DescribeFn = FunctionRef<ArgsDescription()>;

  explicit FunctionCore(FunctionOptions options);
  ~FunctionCore();

  struct Result {
    std::vector<Tensor> outputs;
    const void* output_template;  // valid while the function lives
  };
  // args.key gets the tensors' metas appended.
  Result call(CallArgs& args, const TraceFn& trace, const DescribeFn& describe);
  void count_eager_call();
  bool runs_eagerly() const;

  const FunctionOptions& options() const { return options_; }
  FunctionStats stats() const;
  std::vector<std::string> concrete_signatures() const;
  size_t num_traces() const;
  std::string graph_text(size_t trace, bool optimized = true) const;
  std::string graph_dot(size_t trace) const;
  // Trace `trace`'s optimized graph (TensorBoard draws it).
  std::shared_ptr<const Graph> graph(size_t trace) const;
  // One entry per plan (concrete shape): arena size, kernel steps, in-place steps.
  std::vector<PlanStats> plan_stats() const;

 private:
  struct KeyHash {
    size_t operator()(const std::vector<int64_t>& key) const;
  };

  CachedPlan& make_plan(CallArgs& args, size_t structure_size, const TraceFn& trace,
                        const DescribeFn& describe);
  std::vector<TensorSpec> signature_specs(const CallArgs& args, const ArgsDescription& desc,
                                          std::vector<DType>& cast_to);
  const Trace* find_trace(const std::vector<int64_t>& structure,
                          std::span<const TensorSpec> wanted) const;
  Trace& add_trace(std::vector<int64_t> structure, std::vector<TensorSpec> specs,
                   ArgsDescription description, const TraceFn& trace);
  void note_call(bool traced, const std::string& explanation);

  FunctionOptions options_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Trace>> traces_;
  std::unordered_map<std::vector<int64_t>, std::unique_ptr<CachedPlan>, KeyHash> plans_;
  std::vector<std::string> logged_casts_;
  std::array<bool, 10> recent_{};  // whether each of the last 10 calls traced
  size_t recent_count_ = 0;
  FunctionStats stats_;
  // Shared by every plan: runs are serialized by mutex_.
  std::shared_ptr<engine::SharedArena> arena_ = std::make_shared<engine::SharedArena>();
};

}  // namespace kiln::engine
