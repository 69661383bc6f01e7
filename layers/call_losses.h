#pragma once
// Losses a forward pass adds beside the compiled loss (Keras's layer.add_loss; kiln's layers add
// their activity regularizers' penalties): gathered on this thread while a CallLosses scope is
// open, as the trainer opens one around each train and test step's model call.
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

class CallLosses {
 public:
  CallLosses();
  ~CallLosses();
  CallLosses(const CallLosses&) = delete;
  CallLosses& operator=(const CallLosses&) = delete;

  // The sum of the losses added while this scope was the innermost, as float32; undefined when
  // none were.
  Tensor total() const;

  // Whether a scope is open on this thread (a layer skips computing a penalty nobody gathers).
  static bool active();
  // Adds `loss` (a scalar, or summed to one) to the innermost scope; nothing when none is open.
  static void add(const Tensor& loss);

 private:
  std::vector<Tensor> losses_;
  CallLosses* outer_;
};

}  // namespace kiln::layers
