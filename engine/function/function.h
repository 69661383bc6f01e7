#pragma once
// kiln::function: a C++ callable traced into graphs (think tf.function). Each call is matched by
// its input signature (per tensor leaf: dtype, rank, dims, device; per static leaf: its value) to
// a cached plan; a miss traces the callable on symbolic tensors, optimizes the graph and plans
// it. See FunctionOptions for input signatures, reduced retracing and eager debugging.
//
//   auto step = kiln::function([&](const Tensor& x, const Tensor& y) { ... return loss; },
//                              {.name = "train_step"});
//   Tensor loss = step(x, y);
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/engine/function/function_core.h"
#include "kiln/engine/function/tree.h"
#include "kiln/engine/function/tree_visitors.h"
#include "kiln/framework/graph/trace_frame.h"

namespace kiln {

template <typename Signature>
class Function;

template <typename R, typename... Args>
class Function<R(Args...)> {
 public:
  Function(std::function<R(const Args&...)> f, FunctionOptions options)
      : f_(std::move(f)), core_(std::make_shared<engine::FunctionCore>(std::move(options))) {}

  R operator()(const Args&... args) const {
    if (core_->runs_eagerly()) {
      core_->count_eager_call();
      return f_(args...);
    }
    // Called from inside another function's trace: inline into that trace.
    if (current_trace_frame() != 0) return f_(args...);
    engine::CallArgs call;
    call.key.reserve(32);
    call.tensors.reserve(sizeof...(Args));
    engine::KeyVisitor key{call.key, call.tensors};
    (visit_tree(args, key), ...);
    const auto trace_args = [&](std::span<const Tensor> symbolic) {
      return trace(symbolic, args...);
    };
    const auto describe_args = [&] { return describe(args...); };
    const auto result = core_->call(call, trace_args, describe_args);
    if constexpr (!std::is_void_v<R>) {
      R out = *static_cast<const R*>(result.output_template);
      engine::ReplaceVisitor fill{result.outputs};
      visit_tree(out, fill);
      return out;
    }
  }

  FunctionStats stats() const { return core_->stats(); }
  // One line per trace: "name(x: float32[?, 20], n=3) -> (float32[?, 1])".
  std::vector<std::string> concrete_signatures() const { return core_->concrete_signatures(); }
  size_t num_traces() const { return core_->num_traces(); }
  std::string graph_text(size_t trace = 0, bool optimized = true) const {
    return core_->graph_text(trace, optimized);
  }
  std::string graph_dot(size_t trace = 0) const { return core_->graph_dot(trace); }
  std::shared_ptr<const engine::Graph> graph(size_t trace = 0) const { return core_->graph(trace); }
  std::vector<engine::PlanStats> plan_stats() const { return core_->plan_stats(); }
  const FunctionOptions& options() const { return core_->options(); }

 private:
  engine::TraceOutput trace(std::span<const Tensor> symbolic, const Args&... args) const {
    std::tuple<Args...> copy(args...);
    engine::ReplaceVisitor replace{symbolic};
    std::apply([&](auto&... a) { (visit_tree(a, replace), ...); }, copy);
    engine::TraceOutput out;
    if constexpr (std::is_void_v<R>) {
      std::apply(f_, copy);
    } else {
      auto result = std::make_shared<R>(std::apply(f_, copy));
      engine::CollectVisitor collect{out.tensors};
      visit_tree(std::as_const(*result), collect);
      // The template keeps only structure and static leaves, not the traced tensors.
      engine::ClearVisitor clear;
      visit_tree(*result, clear);
      out.output_template = std::move(result);
    }
    return out;
  }

  engine::ArgsDescription describe(const Args&... args) const {
    engine::ArgsDescription d;
    engine::DescribeVisitor visitor{d.tensor_paths, d.statics, {}};
    const auto& names = core_->options().arg_names;
    size_t i = 0;
    auto one = [&](const auto& arg) {
      visitor.path = {i < names.size() ? names[i] : "arg" + std::to_string(i)};
      ++i;
      visit_tree(arg, visitor);
    };
    (one(args), ...);
    return d;
  }

  std::function<R(const Args&...)> f_;
  std::shared_ptr<engine::FunctionCore> core_;
};

namespace engine::detail {

template <typename C>
struct signature_of : signature_of<decltype(&C::operator())> {};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...) const> {
  using type = std::remove_cvref_t<R>(std::remove_cvref_t<A>...);
};
template <typename C, typename R, typename... A>
struct signature_of<R (C::*)(A...)> {
  using type = std::remove_cvref_t<R>(std::remove_cvref_t<A>...);
};
template <typename R, typename... A>
struct signature_of<R (*)(A...)> {
  using type = std::remove_cvref_t<R>(std::remove_cvref_t<A>...);
};

}  // namespace engine::detail

// Wraps a lambda or function; argument and result types come from its call operator.
template <typename F>
auto function(F f, FunctionOptions options = {}) {
  using Signature = typename engine::detail::signature_of<std::decay_t<F>>::type;
  return Function<Signature>(std::move(f), std::move(options));
}

}  // namespace kiln
