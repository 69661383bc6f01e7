#include "kiln/framework/tensor/variable.h"

#include <cstring>

#include "kiln/framework/backends/backend.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/graph/trace_frame.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"

namespace kiln {
namespace {

// Innermost last; a linear scan: models substitute a few hundred variables at most.
thread_local std::vector<std::pair<const VariableState*, Tensor>> substitutions;

}  // namespace

VariableSubstitution::VariableSubstitution(const std::vector<Variable>& variables,
                                           const std::vector<Tensor>& substitutes)
    : previous_size_(substitutions.size()) {
  KILN_CHECK(variables.size() == substitutes.size(), "VariableSubstitution: ", variables.size(),
             " variables but ", substitutes.size(), " substitutes");
  for (size_t i = 0; i < variables.size(); ++i)
    substitutions.emplace_back(variables[i].state().get(), substitutes[i]);
}

VariableSubstitution::~VariableSubstitution() {
  substitutions.resize(previous_size_);
}

std::string VariableState::describe() const {
  return detail::concat("variable '", name, "' ", kiln::describe(value.meta()));
}

Variable::Variable(const Tensor& initial, std::string name, bool trainable)
    : state_(std::make_shared<VariableState>()) {
  KILN_CHECK(initial.defined() && !initial.is_symbolic(), "variable '", name,
             "' needs a concrete initial value");
  state_->value = initial.detach().clone();
  state_->name = std::move(name);
  state_->trainable = trainable;
}

Tensor Variable::value() const {
  KILN_CHECK(defined(), "use of an undefined variable");
  for (auto it = substitutions.rbegin(); it != substitutions.rend(); ++it)
    if (it->first == state_.get()) return it->second;
  if (TraceHooks* hooks = current_trace_hooks()) return hooks->read_variable(state_);
  return state_->value;
}

void Variable::assign(const Tensor& value) const {
  KILN_CHECK(defined(), "assign to an undefined variable");
  KILN_CHECK(value.defined(), "variable '", name(), "': assigned an undefined tensor");
  KILN_CHECK(value.shape() == shape() && value.dtype() == dtype(), "variable '", name(), "' is ",
             describe(meta()), "; cannot assign a value of ", describe(value.meta()));
  if (TraceHooks* hooks = current_trace_hooks()) {
    hooks->assign_variable(state_, value);
    return;
  }
  KILN_CHECK(!value.is_symbolic(), "variable '", name(),
             "': assigned a symbolic tensor outside the trace it belongs to");
  copy_into(state_->value, value);
}

void Variable::move_to(const Device& device) const {
  KILN_CHECK(defined(), "move of an undefined variable");
  state_->value = state_->value.to(device);
}

void Variable::assign_add(const Tensor& delta) const {
  assign(ops::add(value(), delta));
}

void Variable::assign_sub(const Tensor& delta) const {
  assign(ops::sub(value(), delta));
}

void copy_into(const Tensor& dst, const Tensor& src) {
  KILN_CHECK(dst.shape() == src.shape() && dst.dtype() == src.dtype(),
             "copy_into: ", describe(src.meta()), " into ", describe(dst.meta()));
  if (dst.raw_data() == src.raw_data() || dst.nbytes() == 0) return;
  const Tensor from = src.device() == dst.device() ? src : src.to(dst.device());
  if (dst.device().is_cpu())
    std::memcpy(dst.raw_data(), from.raw_data(), dst.nbytes());
  else
    backend_for(dst.device())
        .copy_on_device(dst.raw_data(), from.raw_data(), dst.nbytes(), dst.device().index);
}

}  // namespace kiln
