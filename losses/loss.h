#pragma once
// Keras losses: a Loss computes per-sample values (call), then weights and reduces them
// (operator()). Every loss works eagerly and while tracing with unknown batch dims, and computes
// in float32 at least (mixed-precision predictions are cast up first), as Keras does.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/losses/reduction.h"

namespace kiln::losses {

// The arguments every Keras loss takes, last in each loss's options struct as in Keras's
// constructors; an empty name is the class's own Keras name ("mean_squared_error").
#define KILN_LOSS_ARGS_FIELDS                                                           \
  ::kiln::losses::Reduction reduction = ::kiln::losses::Reduction::sum_over_batch_size; \
  std::string name{};

// The options of the losses that take only the common arguments.
struct LossOptions {
  KILN_LOSS_ARGS_FIELDS
};

class Loss {
 public:
  explicit Loss(std::string name, Reduction reduction = Reduction::sum_over_batch_size)
      : name_(std::move(name)), reduction_(reduction) {}
  virtual ~Loss() = default;

  // Per-sample losses: y_pred's shape without the last axis (the class/feature axis), or the
  // elementwise shape for losses that have none.
  virtual Tensor call(const Tensor& y_true, const Tensor& y_pred) const = 0;

  // call, times sample_weight (broadcast against the per-sample losses; undefined = 1), reduced.
  // `mask` (bool or 0/1, the per-sample shape; undefined = none) drops masked positions from both
  // the sum and the count, as Keras's masked losses do. Float16/bfloat16 predictions are cast
  // to float32 before call, and the result is float32 at least.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = {},
                    const Tensor& mask = {}) const;

  const std::string& name() const { return name_; }
  Reduction reduction() const { return reduction_; }
  // The Keras class name ("CategoricalCrossentropy"), used by configs and checkpoints.
  virtual std::string class_name() const = 0;
  // {"name": ..., "reduction": ..., plus the loss's own arguments} (loss_fields.h).
  virtual Config get_config() const;

 protected:
  // call plus the positions the loss itself leaves out (Keras's mask on the loss values), which
  // operator() merges with the caller's mask. The default leaves none out.
  virtual MaskedLosses call_masked(const Tensor& y_true, const Tensor& y_pred) const {
    return {call(y_true, y_pred), Tensor()};
  }

 private:
  std::string name_;
  Reduction reduction_;
};

using LossPtr = std::shared_ptr<const Loss>;

}  // namespace kiln::losses
