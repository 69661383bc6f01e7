#pragma once
// A named, mutable tensor: model weights, optimizer slots, metric state. Traced functions capture
// variables by reference, so assigning new values (or loading another model's weights) never
// retraces: the graph reads the variable's current data on every call.
//
// A mirrored variable (Keras's MirroredVariable, for MirroredStrategy's replicas in one process)
// keeps one copy per replica, each on its replica's device. Under a MirrorScope(i) reads, writes
// and traces see copy i alone; outside every MirrorScope (Keras's cross-replica context: callbacks,
// loading weights) reads see copy 0 and writes go to every copy.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/graph/node.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln {

// What a Variable handle shares; the payload of a graph's read_variable node.
struct VariableState : NodePayload {
  Tensor value;  // concrete (but a trial build's: Variable::symbolic); assignment copies into it
  std::string name;
  bool trainable = true;
  // Keras's Variable.constraint: a projection the optimizer applies after each update (MaxNorm);
  // empty for none.
  std::function<Tensor(const Tensor&)> constraint;
  // The other replicas' copies (replica i's at i - 1) while mirrored; empty otherwise.
  std::vector<std::shared_ptr<VariableState>> mirrors;
  std::string describe() const override;
};

class Variable {
 public:
  Variable() = default;
  // Takes a copy of `initial` (so later changes to `initial` do not leak in).
  explicit Variable(const Tensor& initial, std::string name = "", bool trainable = true);
  // A variable with no value, whose reads give a symbolic tensor of `meta`: a weight of a trial
  // build (layers/trial_build.h), which checks a model on shapes without drawing or allocating
  // anything. It cannot be assigned or run.
  static Variable symbolic(const TensorMeta& meta, std::string name, bool trainable);

  bool defined() const { return state_ != nullptr; }
  // Eagerly the current data (shared, not a copy: a later assign shows through); while tracing,
  // the symbolic value of the variable at this point of the trace.
  Tensor value() const;
  // Eagerly copies `value` into the variable's storage; while tracing, records the assignment,
  // which takes effect when the traced function runs. Shape and dtype must match.
  void assign(const Tensor& value) const;
  void assign_add(const Tensor& delta) const;
  void assign_sub(const Tensor& delta) const;

  // Moves the data to `device` (compile takes a model's variables to its device). Steps traced
  // before were planned for the old device: the caller drops them. A mirrored variable stops
  // being one.
  void move_to(const Device& device) const;

  // Gives the variable a copy per replica: replica i's (i >= 1) on devices[i], each equal to the
  // current value (copy 0, which stays where it is). Already mirrored on those devices, its
  // copies take the current value.
  void mirror(const std::vector<Device>& devices) const;
  bool mirrored() const { return !state_->mirrors.empty(); }

  const std::string& name() const { return state_->name; }
  bool trainable() const { return state_->trainable; }
  const std::function<Tensor(const Tensor&)>& constraint() const { return state_->constraint; }
  void set_constraint(std::function<Tensor(const Tensor&)> constraint) const {
    state_->constraint = std::move(constraint);
  }
  // This thread's replica's copy's (its device is that replica's).
  const TensorMeta& meta() const;
  const Shape& shape() const { return meta().shape; }
  DType dtype() const { return meta().dtype; }
  const std::shared_ptr<VariableState>& state() const { return state_; }

 private:
  std::shared_ptr<VariableState> state_;
};

// While alive, reads of `variables` (Variable::value) give `substitutes` instead, on this thread:
// autodiff with respect to variables runs the model on tensors it can follow (see
// value_and_grad over variables in framework/autodiff/grad.h). Scopes nest.
class VariableSubstitution {
 public:
  VariableSubstitution(const std::vector<Variable>& variables,
                       const std::vector<Tensor>& substitutes);
  ~VariableSubstitution();
  VariableSubstitution(const VariableSubstitution&) = delete;
  VariableSubstitution& operator=(const VariableSubstitution&) = delete;

 private:
  size_t previous_size_;
};

// While alive, this thread computes for replica `index` of mirrored variables: it reads, writes
// and traces copy `index` alone. Scopes nest.
class MirrorScope {
 public:
  explicit MirrorScope(int index);
  ~MirrorScope();
  MirrorScope(const MirrorScope&) = delete;
  MirrorScope& operator=(const MirrorScope&) = delete;

 private:
  int previous_;
};

// Copies src's data into dst's storage (same shape and dtype, any devices).
void copy_into(const Tensor& dst, const Tensor& src);

}  // namespace kiln
