#pragma once
// Keras optimizers. All state (iterations, learning rate, slots such as Adam's moments) lives in
// Variables, so an update traced into a train step runs in the graph, a checkpoint holds the
// whole optimizer, and changing the learning rate (ReduceLROnPlateau) never retraces.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/config_fields.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"
#include "kiln/optimizers/schedules.h"

namespace kiln::optimizers {

struct OptimizerOptions {
  double learning_rate = 0.001;
  // A schedule replaces the constant rate; it is evaluated on `iterations` inside the step.
  std::shared_ptr<const LearningRateSchedule> schedule;
  std::optional<double> clipnorm;         // per-gradient L2 norm limit
  std::optional<double> clipvalue;        // per-element limit
  std::optional<double> global_clipnorm;  // limit on the norm of all gradients together
  std::optional<double> weight_decay;     // decoupled decay (AdamW's, and Keras's for all)
  // Keras's weight averaging arguments, which act only with use_ema (refused: kiln has none).
  double ema_momentum = 0.99;
  std::optional<int64_t> ema_overwrite_frequency;
  std::string name;
};

// The keys every Keras optimizer config holds, over OptimizerOptions (config_fields.h): name;
// learning_rate, a number or a schedule's config; weight_decay, clipnorm, clipvalue,
// global_clipnorm. Keras's use_ema, loss_scale_factor and gradient_accumulation_steps are
// written at the values that switch them off and refused at any other.
const FieldTable<OptimizerOptions>& optimizer_fields();

class Optimizer {
 public:
  explicit Optimizer(OptimizerOptions options);
  virtual ~Optimizer() = default;

  // Creates the slot variables for `variables` (once; later calls with new variables add
  // theirs). apply_gradients builds on first use; call it before tracing to keep traces pure.
  virtual void build(const std::vector<Variable>& variables);
  // One update of each variable with its gradient (an undefined gradient skips the variable);
  // clips, applies weight decay, updates, applies each variable's constraint, then increments
  // iterations. Eager or traced.
  virtual void apply_gradients(const std::vector<Tensor>& gradients,
                               const std::vector<Variable>& variables);
  // The loss whose gradients apply_gradients takes: the loss itself, or scaled
  // (LossScaleOptimizer).
  virtual Tensor scale_loss(const Tensor& loss) const { return loss; }

  // The rate of the coming step: the constant, or the schedule at `iterations` (a tensor, so it
  // traces).
  virtual Tensor current_learning_rate() const;
  // Sets the constant rate (an error when a schedule drives it). Does not retrace.
  virtual void set_learning_rate(double learning_rate);
  virtual double learning_rate()
      const;  // the constant's current value, or the schedule's now (eager)

  virtual const Variable& iterations() const { return iterations_; }
  // Every state variable in Keras's order, so checkpoints line up with Keras's: iterations, the
  // learning rate (absent when a schedule drives it, as in Keras), the slots group by group
  // (each group variable by variable, in build order), then extra state (Nadam's u_product).
  virtual std::vector<Variable> variables() const;

  virtual std::string class_name() const = 0;  // "Adam"
  virtual Config get_config() const;           // Keras's keys: learning_rate, beta_1, ...
  const OptimizerOptions& options() const { return options_; }

 protected:
  // Slots are made the way Keras's add_optimizer_variables makes them: a group of names (Adam's
  // {"momentum", "velocity"}) for every variable, then the next group (amsgrad's
  // {"velocity_hat"}). variables() lists them in that order, which is Keras's checkpoint order.
  struct SlotGroup {
    std::vector<std::string> names;
    double initial_value = 0.0;  // Adagrad's initial_accumulator_value; zero elsewhere
  };
  virtual std::vector<SlotGroup> slot_groups() const = 0;
  // Updates `variable` from its (clipped) gradient; `slots` are this variable's slot variables
  // in slot_groups() order (flattened); `gradient`, `lr` and `step` (iterations + 1) have the
  // variable's dtype, `lr` and `step` are scalars.
  virtual void update_step(const Tensor& gradient, const Variable& variable,
                           const std::vector<Variable>& slots, const Tensor& lr,
                           const Tensor& step) = 0;
  // Runs once per apply_gradients after clipping and weight decay, before the per-variable
  // updates: state shared by all variables advances here (Nadam's u_product). `step` is
  // iterations + 1, float32.
  virtual void update_shared_state(const Tensor& step);

  // A state variable outside the slots ("<name>/<suffix>"), listed after them in variables().
  Variable add_variable(const Tensor& initial, const std::string& suffix);
  // `options` with `name` filled in when empty: Keras names an optimizer after its class.
  static OptimizerOptions with_default_name(OptimizerOptions options, std::string name);

 private:
  struct VariableSlots {
    Variable variable;
    std::vector<Variable> slots;  // slot_groups() order, flattened
  };
  const VariableSlots& slots_of(const Variable& variable) const;

  OptimizerOptions options_;
  Variable iterations_;     // int64 scalar
  Variable learning_rate_;  // float32 scalar (the constant rate)
  std::vector<VariableSlots> slots_;
  std::unordered_map<const VariableState*, size_t> slot_index_;  // into slots_
  std::vector<Variable> extra_variables_;                        // from add_variable
};

using OptimizerPtr = std::shared_ptr<Optimizer>;

}  // namespace kiln::optimizers
