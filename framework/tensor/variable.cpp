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

// The replica this thread computes for (MirrorScope), or -1: every replica (a write reaches each
// copy of a mirrored variable).
thread_local int mirror_index = -1;

// The copy of `state` this thread reads: its replica's, or the only one.
const std::shared_ptr<VariableState>& this_replicas(const std::shared_ptr<VariableState>& state) {
  if (mirror_index <= 0 || state->mirrors.empty()) return state;
  KILN_CHECK(static_cast<size_t>(mirror_index) <= state->mirrors.size(), "variable '", state->name,
             "' has ", state->mirrors.size() + 1, " replicas; replica ", mirror_index, " has none");
  return state->mirrors[static_cast<size_t>(mirror_index) - 1];
}

}  // namespace

MirrorScope::MirrorScope(int index) : previous_(mirror_index) {
  mirror_index = index;
}

MirrorScope::~MirrorScope() {
  mirror_index = previous_;
}

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

Variable Variable::symbolic(const TensorMeta& meta, std::string name, bool trainable) {
  Variable v;
  v.state_ = std::make_shared<VariableState>();
  v.state_->value = Tensor::symbolic(meta);
  v.state_->name = std::move(name);
  v.state_->trainable = trainable;
  return v;
}

const TensorMeta& Variable::meta() const {
  return this_replicas(state_)->value.meta();
}

Tensor Variable::value() const {
  KILN_CHECK(defined(), "use of an undefined variable");
  for (auto it = substitutions.rbegin(); it != substitutions.rend(); ++it)
    if (it->first == state_.get()) return it->second;
  const std::shared_ptr<VariableState>& state = this_replicas(state_);
  if (TraceHooks* hooks = current_trace_hooks()) return hooks->read_variable(state);
  return state->value;
}

void Variable::assign(const Tensor& value) const {
  KILN_CHECK(defined(), "assign to an undefined variable");
  KILN_CHECK(value.defined(), "variable '", name(), "': assigned an undefined tensor");
  KILN_CHECK(value.shape() == shape() && value.dtype() == dtype(), "variable '", name(), "' is ",
             describe(meta()), "; cannot assign a value of ", describe(value.meta()));
  // Replicas writing one shared copy would race and count each update once per replica.
  KILN_CHECK(mirror_index <= 0 || mirrored(), "variable '", name(), "' is written by replica ",
             mirror_index, " but was made after MirroredStrategy copied the model's state to ",
             "its replicas, so they would share it; make it before the first step");
  if (TraceHooks* hooks = current_trace_hooks()) {
    hooks->assign_variable(this_replicas(state_), value);
    return;
  }
  KILN_CHECK(!value.is_symbolic(), "variable '", name(),
             "': assigned a symbolic tensor outside the trace it belongs to");
  if (mirror_index >= 0) {
    copy_into(this_replicas(state_)->value, value);
    return;
  }
  copy_into(state_->value, value);
  for (const auto& copy : state_->mirrors) copy_into(copy->value, value);
}

void Variable::move_to(const Device& device) const {
  KILN_CHECK(defined(), "move of an undefined variable");
  state_->value = state_->value.to(device);
  state_->mirrors.clear();
}

void Variable::mirror(const std::vector<Device>& devices) const {
  KILN_CHECK(defined(), "mirror of an undefined variable");
  // Mirrored on these devices already (a layer shared by two models): the copies stay, as the
  // steps traced on them hold them, and take copy 0's value.
  bool same = state_->mirrors.size() + 1 == devices.size();
  for (size_t i = 1; same && i < devices.size(); ++i)
    same = state_->mirrors[i - 1]->value.device() == devices[i];
  if (same) {
    for (const auto& copy : state_->mirrors) copy_into(copy->value, state_->value);
    return;
  }
  state_->mirrors.clear();
  for (size_t i = 1; i < devices.size(); ++i) {
    auto copy = std::make_shared<VariableState>();
    // A copy of its own even where the device is the same (replicas sharing the CPU).
    copy->value = state_->value.clone().to(devices[i]);
    copy->name = state_->name;
    copy->trainable = state_->trainable;
    state_->mirrors.push_back(std::move(copy));
  }
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
