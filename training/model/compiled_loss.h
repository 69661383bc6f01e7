#pragma once
// compile's loss over the model's outputs (Keras's CompileLoss): one loss per output, weighted by
// loss_weights, plus the losses the forward pass added (activity regularizers) and the weights'
// penalties, summed into the loss a step minimises.
#include <vector>

#include "kiln/losses/loss.h"
#include "kiln/training/model/batch.h"
#include "kiln/training/model/compile_options.h"

namespace kiln {

class Model;

class CompiledLoss {
 public:
  // compile's `loss` for every output, or its `losses`, one each; refuses counts that differ
  // from the model's outputs.
  CompiledLoss(const CompileOptions& options, const Model& model);

  // How many outputs the losses cover: 0 for a model compiled without a loss.
  size_t outputs() const { return losses_.size(); }
  // The batch's loss. masks: the model's output masks (Model::output_masks); masked positions do
  // not count. added_loss: the losses the forward pass added (layers::CallLosses), undefined for
  // none.
  Tensor operator()(const std::vector<Tensor>& y, const std::vector<Tensor>& predictions,
                    const std::vector<Tensor>& sample_weight, const std::vector<Tensor>& masks,
                    const Tensor& added_loss) const;
  // The losses on symbolic targets and predictions: a target that does not fit its output is
  // refused, naming both, before any state is made.
  void check_targets(const Batch& batch, const std::vector<TensorMeta>& predictions) const;

 private:
  const Model& model_;
  std::vector<losses::LossPtr> losses_;
  std::vector<double> weights_;  // per output; empty for 1 each
};

}  // namespace kiln
