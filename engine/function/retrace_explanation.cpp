#include <sstream>

#include "kiln/engine/function/trace.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::engine {
namespace {

int count_differences(const Trace& t, const CallSignature& call) {
  if (t.structure != call.structure || t.specs.size() != call.metas.size()) {
    int diff = 1000;
    const auto& a = t.description.statics;
    const auto& b = call.description.statics;
    if (a.size() == b.size())
      for (size_t i = 0; i < a.size(); ++i) diff += a[i] != b[i];
    return diff;
  }
  int diff = 0;
  for (size_t i = 0; i < t.specs.size(); ++i) {
    const TensorSpec& s = t.specs[i];
    const TensorMeta& m = call.metas[i];
    diff += s.dtype != m.dtype;
    if (!s.matches_shape(m.shape)) diff += s.shape.rank() != m.shape.rank() ? 10 : 1;
  }
  return diff;
}

std::string shape_with_unknown(const Shape& traced, const Shape& actual) {
  std::vector<int64_t> dims = actual.dims();
  for (size_t d = 0; d < dims.size(); ++d)
    if (traced[static_cast<int>(d)] != actual[static_cast<int>(d)]) dims[d] = Shape::kUnknownDim;
  return Shape(dims).to_string();
}

}  // namespace

std::string Trace::signature(const std::string& name) const {
  std::ostringstream out;
  out << name << '(';
  const char* sep = "";
  for (size_t i = 0; i < specs.size(); ++i, sep = ", ") {
    out << sep << description.tensor_paths[i] << ": ";
    if (specs[i].unknown_rank)
      out << dtype_name(specs[i].dtype) << "[<any rank>]";
    else
      out << describe(TensorMeta{specs[i].dtype, specs[i].shape, {}});
  }
  for (const auto& [path, value] : description.statics) {
    out << sep << path << '=' << value;
    sep = ", ";
  }
  out << ')';
  if (graph == nullptr) return out.str();
  out << " -> (";
  for (size_t i = 0; i < graph->outputs.size(); ++i)
    out << (i ? ", " : "") << describe(graph->node(graph->outputs[i]).meta);
  out << ')';
  return out.str();
}

const Trace* nearest_trace(const std::vector<std::unique_ptr<Trace>>& traces,
                           const CallSignature& call) {
  const Trace* best = nullptr;
  int best_diff = 0;
  for (const auto& t : traces) {
    const int diff = count_differences(*t, call);
    if (best == nullptr || diff <= best_diff) {  // ties: the latest trace
      best = t.get();
      best_diff = diff;
    }
  }
  return best;
}

std::string explain_retrace(const Trace* nearest, const CallSignature& call,
                            const std::string& name) {
  if (nearest == nullptr) return "first call";
  std::vector<std::string> changes;
  std::vector<std::string> fixes;
  if (nearest->structure != call.structure || nearest->specs.size() != call.metas.size()) {
    const auto& before = nearest->description.statics;
    const auto& now = call.description.statics;
    bool named = false;
    if (before.size() == now.size()) {
      for (size_t i = 0; i < now.size(); ++i) {
        if (before[i].first != now[i].first) break;
        if (before[i].second == now[i].second) continue;
        changes.push_back(detail::concat("static argument ", now[i].first, " changed ",
                                         before[i].second, " -> ", now[i].second));
        named = true;
      }
    }
    if (named) {
      fixes.push_back(
          "every new value of a non-tensor argument is a new trace; pass it as a tensor "
          "(kiln::scalar(value)) to reuse one trace");
    } else {
      changes.push_back("the structure of the arguments changed (containers or their sizes)");
      fixes.push_back("keep the argument structure fixed between calls");
    }
  } else {
    for (size_t i = 0; i < call.metas.size(); ++i) {
      const TensorSpec& s = nearest->specs[i];
      const TensorMeta& m = call.metas[i];
      const std::string& path = call.description.tensor_paths[i];
      if (s.dtype != m.dtype) {
        changes.push_back(detail::concat(path, " dtype changed ", dtype_name(s.dtype), " -> ",
                                         dtype_name(m.dtype)));
        fixes.push_back(detail::concat("give an input_signature with dtype ", dtype_name(s.dtype),
                                       " for ", path,
                                       ": other dtypes are then cast at the "
                                       "boundary"));
      }
      if (s.matches_shape(m.shape)) continue;
      if (s.shape.rank() != m.shape.rank()) {
        changes.push_back(detail::concat(path, " rank changed ", s.shape.rank(), " -> ",
                                         m.shape.rank(), " (", s.shape, " -> ", m.shape, ")"));
        fixes.push_back(
            detail::concat("give an input_signature with TensorSpec::any_rank() for ", path));
        continue;
      }
      for (int d = 0; d < m.shape.rank(); ++d)
        if (s.shape[d] != Shape::kUnknownDim && s.shape[d] != m.shape[d])
          changes.push_back(
              detail::concat(path, " dim ", d, " changed ", s.shape[d], " -> ", m.shape[d]));
      fixes.push_back(detail::concat("set reduce_retracing, or give an input_signature with ", path,
                                     " as TensorSpec(shape=", shape_with_unknown(s.shape, m.shape),
                                     ", dtype=", dtype_name(s.dtype), ")"));
    }
  }
  std::ostringstream out;
  for (size_t i = 0; i < changes.size(); ++i) out << (i ? "; " : "") << changes[i];
  out << " (nearest cached trace: " << nearest->signature(name) << "). Fix: ";
  for (size_t i = 0; i < fixes.size(); ++i) out << (i ? "; or " : "") << fixes[i];
  return out.str();
}

}  // namespace kiln::engine
