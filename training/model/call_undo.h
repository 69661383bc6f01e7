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

namespace kiln {

namespace layers {
class Layer;
}
class Model;

class CallUndo {
 public:
  // Whether the call runs training steps. Values of existing variables (a copy of every weight)
  // are recorded only when something may assign them before a step completes: a first training
  // step that fails halfway (run eagerly, each update lands as it is computed), or the user's
  // callbacks (BackupAndRestore restoring a backup in on_train_begin). Inference steps and the
  // built-in callbacks assign none, so calls in a loop copy no weights.
  enum class Kind { training, inference };

  CallUndo(Model& model, Kind kind, bool user_callbacks);

  // Runs `call`; when it throws before running a step, restores the model and rethrows.
  template <typename F>
  static decltype(auto) run(Model& model, Kind kind, bool user_callbacks, F&& call) {
    CallUndo undo(model, kind, user_callbacks);
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
