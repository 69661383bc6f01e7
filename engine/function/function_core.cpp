#include "kiln/engine/function/function_core.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <unordered_map>

#include "kiln/engine/graph/build_graph.h"
#include "kiln/framework/core/log.h"
#include "kiln/framework/graph/trace_frame.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln {
namespace {
std::atomic<bool> g_run_eagerly{false};
}  // namespace

void run_functions_eagerly(bool enabled) {
  g_run_eagerly.store(enabled);
}
bool functions_run_eagerly() {
  return g_run_eagerly.load();
}

}  // namespace kiln

namespace kiln::engine {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t meta_token(const TensorMeta& m) {
  return static_cast<int64_t>(m.dtype) | static_cast<int64_t>(m.device.type) << 8 |
         static_cast<int64_t>(m.device.index) << 16 | static_cast<int64_t>(m.shape.rank()) << 32;
}

int unknown_dims(const std::vector<TensorSpec>& specs) {
  int n = 0;
  for (const TensorSpec& s : specs)
    n += static_cast<int>(std::count(s.shape.begin(), s.shape.end(), Shape::kUnknownDim));
  return n;
}

// Reads and assignments of variables while one trace records.
class TraceContext : public TraceHooks {
 public:
  uint32_t frame = 0;
  std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> assignments;

  Tensor read_variable(const std::shared_ptr<VariableState>& variable) override {
    if (auto it = current_.find(variable.get()); it != current_.end()) return it->second;
    Tensor t = Tensor::symbolic(variable->value.meta());
    t.impl()->node = std::make_shared<Node>(Node{OpId::read_variable, {}, {}, variable, frame});
    current_.emplace(variable.get(), t);
    return t;
  }

  void assign_variable(const std::shared_ptr<VariableState>& variable,
                       const Tensor& value) override {
    current_[variable.get()] = value;
    for (auto& [v, assigned] : assignments) {
      if (v == variable) {
        assigned = value;  // the last assignment in program order wins
        return;
      }
    }
    assignments.emplace_back(variable, value);
  }

 private:
  std::unordered_map<const VariableState*, Tensor> current_;
};

}  // namespace

size_t FunctionCore::KeyHash::operator()(const std::vector<int64_t>& key) const {
  uint64_t h = 1469598103934665603ull;
  for (int64_t v : key) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
  return static_cast<size_t>(h);
}

FunctionCore::FunctionCore(FunctionOptions options) : options_(std::move(options)) {}
FunctionCore::~FunctionCore() = default;

bool FunctionCore::runs_eagerly() const {
  return options_.run_eagerly || functions_run_eagerly();
}

void FunctionCore::count_eager_call() {
  const std::lock_guard lock(mutex_);
  ++stats_.calls;
  ++stats_.eager_calls;
}

FunctionCore::Result FunctionCore::call(CallArgs& args, const TraceFn& trace,
                                        const DescribeFn& describe) {
  const std::lock_guard lock(mutex_);
  ++stats_.calls;
  const size_t structure_size = args.key.size();
  for (const Tensor& t : args.tensors) {
    args.key.push_back(meta_token(t.meta()));
    for (int64_t d : t.shape()) args.key.push_back(d);
  }
  CachedPlan* spec = nullptr;
  if (auto it = plans_.find(args.key); it != plans_.end()) {
    ++stats_.cache_hits;
    note_call(false, {});
    spec = it->second.get();
  } else {
    spec = &make_plan(args, structure_size, trace, describe);
  }
  if (!spec->any_cast) return {spec->plan->run(args.tensors), spec->trace->output_template.get()};
  std::vector<Tensor> cast = args.tensors;
  for (size_t i = 0; i < cast.size(); ++i)
    if (cast[i].dtype() != spec->cast_to[i])
      cast[i] =
          boundary_cast(cast[i], spec->cast_to[i],
                        detail::concat("function '", options_.name, "', tensor argument ", i));
  return {spec->plan->run(cast), spec->trace->output_template.get()};
}

CachedPlan& FunctionCore::make_plan(CallArgs& args, size_t structure_size, const TraceFn& trace,
                                    const DescribeFn& describe) {
  const std::vector<int64_t> structure(args.key.begin(),
                                       args.key.begin() + static_cast<ptrdiff_t>(structure_size));
  std::vector<TensorMeta> metas;
  for (const Tensor& t : args.tensors) metas.push_back(t.meta());
  ArgsDescription desc = describe();
  std::vector<DType> cast_to;
  for (const TensorMeta& m : metas) cast_to.push_back(m.dtype);

  std::vector<TensorSpec> wanted;
  if (options_.input_signature) {
    wanted = signature_specs(args, desc, cast_to);
  } else {
    for (const TensorMeta& m : metas) {
      wanted.push_back(TensorSpec::from_meta(m));
      if (options_.unknown_batch_dim && m.shape.rank() >= 1)
        wanted.back().shape[0] = Shape::kUnknownDim;
    }
  }
  const Trace* found = find_trace(structure, wanted);
  const bool traced = found == nullptr;
  std::string explanation;
  if (traced) {
    const CallSignature call{structure, metas, desc};
    const Trace* nearest = nearest_trace(traces_, call);
    explanation = explain_retrace(nearest, call, options_.name);
    if (options_.reduce_retracing && !options_.input_signature && nearest != nullptr &&
        nearest->structure == structure && nearest->specs.size() == wanted.size()) {
      // TensorFlow's rule: dims that differ from the nearest trace become unknown.
      for (size_t i = 0; i < wanted.size(); ++i) {
        const TensorSpec& near = nearest->specs[i];
        if (near.dtype != wanted[i].dtype || near.shape.rank() != wanted[i].shape.rank()) continue;
        for (int d = 0; d < wanted[i].shape.rank(); ++d)
          if (near.shape[d] != wanted[i].shape[d]) wanted[i].shape[d] = Shape::kUnknownDim;
      }
    }
    found = &add_trace(structure, wanted, std::move(desc), trace);
  }
  note_call(traced, explanation);

  const auto start = Clock::now();
  auto spec = std::make_unique<CachedPlan>();
  spec->trace = found;
  spec->cast_to = cast_to;
  for (size_t i = 0; i < metas.size(); ++i) {
    spec->any_cast = spec->any_cast || cast_to[i] != metas[i].dtype;
    metas[i].dtype = cast_to[i];
  }
  try {
    engine::PlanOptions plan_options = options_.plan;
    plan_options.arena = arena_;
    spec->plan = std::make_unique<Plan>(found->graph, metas, plan_options);
  } catch (const ShapeError& e) {
    throw ShapeError(detail::concat("function '", options_.name, "': ", e.what()));
  }
  stats_.compile_seconds += seconds_since(start);
  ++stats_.plans;
  return *plans_.emplace(args.key, std::move(spec)).first->second;
}

std::vector<TensorSpec> FunctionCore::signature_specs(const CallArgs& args,
                                                      const ArgsDescription& desc,
                                                      std::vector<DType>& cast_to) {
  const std::vector<TensorSpec>& signature = *options_.input_signature;
  KILN_CHECK(signature.size() == args.tensors.size(), "function '", options_.name,
             "': input_signature has ", signature.size(), " specs but the call passes ",
             args.tensors.size(), " tensors");
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < signature.size(); ++i) {
    const TensorSpec& spec = signature[i];
    const TensorMeta& m = args.tensors[i].meta();
    const std::string& path = desc.tensor_paths[i];
    KILN_CHECK(spec.matches_shape(m.shape), "function '", options_.name, "': argument ", path,
               " has shape ", m.shape, " (", describe(m), ") which does not match input_signature[",
               i, "] ", spec.to_string());
    if (spec.dtype != m.dtype) {
      const auto refused =
          refuse_boundary_cast(m.dtype, spec.dtype, options_.allow_float_narrowing);
      KILN_CHECK(!refused, "function '", options_.name, "': argument ", path, " is ", describe(m),
                 " but input_signature[", i, "] is ", spec.to_string(), ": ", *refused);
      cast_to[i] = spec.dtype;
      const std::string note = detail::concat(path, ' ', dtype_name(m.dtype));
      if (std::find(logged_casts_.begin(), logged_casts_.end(), note) == logged_casts_.end()) {
        logged_casts_.push_back(note);
        log(LogLevel::info, "function '", options_.name, "': argument ", path, " (",
            dtype_name(m.dtype), ") is cast to ", dtype_name(spec.dtype),
            " at the boundary, as its input_signature asks");
      }
    }
    TensorSpec resolved = spec;
    resolved.device = m.device;
    if (spec.unknown_rank) {
      resolved.shape =
          Shape(std::vector<int64_t>(static_cast<size_t>(m.shape.rank()), Shape::kUnknownDim));
      resolved.unknown_rank = false;
    }
    specs.push_back(std::move(resolved));
  }
  return specs;
}

// The most specific cached trace whose specs accept `wanted` (equal dtypes and devices, every
// known dim equal).
const Trace* FunctionCore::find_trace(const std::vector<int64_t>& structure,
                                      std::span<const TensorSpec> wanted) const {
  const Trace* best = nullptr;
  int best_unknown = 0;
  for (const auto& t : traces_) {
    if (t->structure != structure || t->specs.size() != wanted.size()) continue;
    bool ok = true;
    for (size_t i = 0; i < wanted.size() && ok; ++i) {
      const TensorSpec& s = t->specs[i];
      ok = s.dtype == wanted[i].dtype && s.device == wanted[i].device &&
           s.matches_shape(wanted[i].shape);
    }
    if (!ok) continue;
    const int unknown = unknown_dims(t->specs);
    if (best == nullptr || unknown < best_unknown) {
      best = t.get();
      best_unknown = unknown;
    }
  }
  return best;
}

Trace& FunctionCore::add_trace(std::vector<int64_t> structure, std::vector<TensorSpec> specs,
                               ArgsDescription description, const TraceFn& trace) {
  auto t = std::make_unique<Trace>();
  t->structure = std::move(structure);
  t->specs = std::move(specs);
  t->description = std::move(description);
  const auto start = Clock::now();
  Graph graph;
  {
    TraceContext context;
    TraceFrameScope frame(&context);
    context.frame = frame.id();
    std::vector<TensorMeta> metas;
    for (const TensorSpec& spec : t->specs) metas.push_back({spec.dtype, spec.shape, spec.device});
    TraceRecord record{frame.id(), make_placeholders(metas, frame.id()), {}, {}};
    TraceOutput out;
    try {
      out = trace(record.inputs);
    } catch (const ShapeError& e) {
      throw ShapeError(detail::concat("function '", options_.name, "' (tracing ",
                                      t->signature(options_.name), "): ", e.what()));
    } catch (const Error& e) {
      throw Error(detail::concat("function '", options_.name, "' (tracing ",
                                 t->signature(options_.name), "): ", e.what()));
    }
    record.outputs = std::move(out.tensors);
    record.assignments = std::move(context.assignments);
    graph = build_graph(record, options_.name);
    t->output_template = std::move(out.output_template);
  }
  stats_.trace_seconds += seconds_since(start);
  const auto compile_start = Clock::now();
  t->unoptimized_text = to_text(graph);
  t->graph = std::make_shared<const Graph>(optimize(std::move(graph), options_.passes));
  stats_.compile_seconds += seconds_since(compile_start);
  ++stats_.traces;
  traces_.push_back(std::move(t));
  return *traces_.back();
}

void FunctionCore::note_call(bool traced, const std::string& explanation) {
  recent_[recent_count_ % recent_.size()] = traced;
  ++recent_count_;
  if (!traced || stats_.traces == 1) return;
  log(LogLevel::debug, "function '", options_.name, "' traced again (trace ", stats_.traces,
      "): ", explanation);
  const size_t window = std::min(recent_count_, recent_.size());
  const auto traced_calls = std::count(recent_.begin(), recent_.begin() + window, true);
  if (traced_calls < 5 || stats_.retrace_warnings >= 2) return;
  ++stats_.retrace_warnings;
  log(LogLevel::warning, "function '", options_.name, "': ", traced_calls, " of the last ", window,
      " calls traced (", stats_.traces,
      " traces so far); each trace re-runs the C++ callable and re-optimizes its graph. This "
      "call: ",
      explanation);
}

FunctionStats FunctionCore::stats() const {
  const std::lock_guard lock(mutex_);
  FunctionStats out = stats_;
  out.arena_bytes = arena_->bytes;
  return out;
}

size_t FunctionCore::num_traces() const {
  const std::lock_guard lock(mutex_);
  return traces_.size();
}

std::vector<std::string> FunctionCore::concrete_signatures() const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& t : traces_) out.push_back(t->signature(options_.name));
  return out;
}

std::string FunctionCore::graph_text(size_t trace, bool optimized) const {
  const std::lock_guard lock(mutex_);
  KILN_CHECK(trace < traces_.size(), "function '", options_.name, "' has ", traces_.size(),
             " traces; no trace ", trace);
  return optimized ? to_text(*traces_[trace]->graph) : traces_[trace]->unoptimized_text;
}

std::vector<PlanStats> FunctionCore::plan_stats() const {
  const std::lock_guard lock(mutex_);
  std::vector<PlanStats> out;
  for (const auto& [key, spec] : plans_) out.push_back(spec->plan->stats());
  return out;
}

std::string FunctionCore::graph_dot(size_t trace) const {
  return to_dot(*graph(trace), options_.name);
}

std::shared_ptr<const Graph> FunctionCore::graph(size_t trace) const {
  const std::lock_guard lock(mutex_);
  KILN_CHECK(trace < traces_.size(), "function '", options_.name, "' has ", traces_.size(),
             " traces; no trace ", trace);
  return traces_[trace]->graph;
}

}  // namespace kiln::engine
