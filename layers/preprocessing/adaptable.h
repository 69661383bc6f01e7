#pragma once
// Keras's adapt(): state a preprocessing layer computes from data before training (a
// Normalization's mean and variance, a vocabulary). The data comes as batches, so a dataset
// larger than memory adapts in one pass; a run file adapts such layers on its training split
// before the first epoch.
#include <functional>
#include <optional>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

class Adaptable {
 public:
  // The next batch, or nullopt after the last.
  using Batches = std::function<std::optional<Tensor>()>;

  virtual ~Adaptable() = default;
  // Whether the layer's state must come from adapt (a Normalization given no mean and variance):
  // a run file adapts those before training.
  virtual bool needs_adapt() const = 0;
  // Recomputes the state from every batch `next` gives (at least one).
  virtual void adapt(const Batches& next) = 0;
  // The same from one tensor, one batch.
  void adapt(const Tensor& data);
};

}  // namespace kiln::layers
