#include "kiln/training/model/call_undo.h"

#include "kiln/framework/random/random.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"

namespace kiln {

CallUndo::CallUndo(Model& model, Kind kind, bool user_callbacks) : model_(model) {
  const random::Generator& gen = random::default_generator();
  seed_ = gen.seed();
  draws_ = gen.draws();
  was_built_ = model.built();
  if (!was_built_) built_layers_ = model.built_layers();
  Trainer* trainer = model.trainer_.get();
  had_trainer_ = trainer != nullptr;
  if (trainer != nullptr) {
    had_train_steps_ = trainer->train_steps_ready();
    had_predict_step_ = trainer->predict_step_ready();
    steps_run_ = trainer->steps_run();
    optimizer_slots_ = trainer->optimizer().slot_count();
  }
  if (!user_callbacks && (kind == Kind::inference || had_train_steps_)) return;
  std::vector<Variable> variables = model.weights();
  for (const Variable& v : model.random_states()) variables.push_back(v);
  if (trainer != nullptr)
    for (const Variable& v : trainer->optimizer().variables()) variables.push_back(v);
  for (const Variable& v : variables) values_.emplace_back(v, v.value().clone());
}

void CallUndo::restore_if_no_step_ran() {
  Trainer* trainer = model_.trainer_.get();
  if (trainer != nullptr && trainer->steps_run() != (had_trainer_ ? steps_run_ : 0)) return;
  random::default_generator().set_state(seed_, draws_);
  if (!had_trainer_) {
    model_.trainer_.reset();
  } else {
    if (!had_train_steps_) {
      trainer->forget_train_steps();
      trainer->optimizer().forget_slots_from(optimizer_slots_);
    }
    if (!had_predict_step_) trainer->forget_predict_step();
  }
  for (const auto& [variable, value] : values_) variable.assign(value);
  if (!was_built_) model_.forget_build(built_layers_);
}

}  // namespace kiln
