#pragma once
// A model call that fails before it has run a step leaves nothing behind. Such a call (fit,
// evaluate, predict, train_on_batch, ... with a batch its model refuses) may already have created
// state: traced steps whose signatures came from the refused batch, resolved metrics, optimizer
// slots, the model's weights when the call built it, draws of the random generator (initializers,
// a shuffle seed), new values of existing variables (a callback restoring a checkpoint). CallUndo
// records what is there when a call starts and puts it back when the call throws before any step
// ran, so the next correct call works as it would on a model that never saw the failed one. A
// call that ran steps keeps what they did, as in Keras (a fit stopped in its third epoch keeps
// two epochs of training).
#include <cstdint>
#include <utility>
#include <vector>

#include "kiln/framework/tensor/variable.h"
#include "kiln/layers/layer.h"

namespace kiln {

class Model;

class CallUndo {
 public:
  // What a call may assign to existing variables before its first step completes, and so
  // whether their values are recorded (a copy of every weight).
  enum class Kind {
    // fit: its callbacks may assign before the first step (BackupAndRestore restoring a
    // backup), so values are always recorded.
    fit,
    // train_on_batch: a first training step may assign some variables and then fail (run
    // eagerly, each update lands as it is computed); recorded until the training steps exist.
    training,
    // evaluate, predict, test_on_batch, predict_on_batch: their steps assign no weight,
    // optimizer or random state, so nothing is recorded and calls in a loop copy no weights.
    inference,
  };

  CallUndo(Model& model, Kind kind);

  // Runs `call`; when it throws before running a step, restores the model and rethrows.
  template <typename F>
  static decltype(auto) run(Model& model, Kind kind, F&& call) {
    CallUndo undo(model, kind);
    try {
      return std::forward<F>(call)();
    } catch (...) {
      undo.restore_if_no_step_ran();
      throw;
    }
  }

 private:
  void restore_if_no_step_ran();

  Model& model_;
  bool had_trainer_ = false;
  bool had_train_steps_ = false;
  bool had_predict_step_ = false;
  bool was_built_ = false;
  uint64_t steps_run_ = 0;
  size_t optimizer_slots_ = 0;
  uint64_t seed_ = 0;
  uint64_t draws_ = 0;
  std::vector<std::pair<Variable, Tensor>> values_;  // deep copies
  std::vector<const layers::Layer*> built_layers_;   // built before the call: kept
};

}  // namespace kiln
