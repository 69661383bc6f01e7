#include "kiln/training/model/compiled_loss.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/distributed/replica_context.h"
#include "kiln/framework/ops/dispatch.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/registry.h"
#include "kiln/training/model/model.h"

namespace kiln {
namespace {

losses::LossPtr resolve(const LossArg& arg) {
  return arg.loss ? arg.loss : losses::get(arg.name);
}

}  // namespace

CompiledLoss::CompiledLoss(const CompileOptions& options, const Model& model)
    : model_(model), weights_(options.loss_weights) {
  const size_t outputs = model.num_outputs();
  if (!options.losses.empty()) {
    KILN_CHECK(options.losses.size() == outputs, "compile: model '", model.name(), "' has ",
               outputs, " outputs but ", options.losses.size(), " losses were given");
    for (const LossArg& l : options.losses) losses_.push_back(resolve(l));
  } else if (!options.loss.empty()) {
    losses_.assign(outputs, resolve(options.loss));
  }
  KILN_CHECK(weights_.empty() || weights_.size() == outputs, "compile: ", weights_.size(),
             " loss_weights for ", outputs, " outputs");
}

Tensor CompiledLoss::operator()(const std::vector<Tensor>& y,
                                const std::vector<Tensor>& predictions,
                                const std::vector<Tensor>& sample_weight,
                                const std::vector<Tensor>& masks, const Tensor& added_loss) const {
  const Tensor sw = sample_weight.empty() ? Tensor() : sample_weight[0];
  Tensor total;
  for (size_t o = 0; o < losses_.size(); ++o) {
    Tensor l = (*losses_[o])(y[o], predictions[o], sw, o < masks.size() ? masks[o] : Tensor());
    if (!weights_.empty()) l = l * weights_[o];
    total = total.defined() ? total + l : l;
  }
  // A replica's activity penalties are on its rows only: the replicas' sum is one device's.
  if (added_loss.defined()) total = total + ops::cast(added_loss, total.dtype());
  Tensor penalty = model_.regularization_loss();
  if (!penalty.defined()) return total;
  // Each replica adds its share: the replicas' losses sum to one penalty, as one device's.
  const int replicas = distributed::replica_context().count;
  if (replicas > 1) penalty = penalty * (1.0 / replicas);
  return total + ops::cast(penalty, total.dtype());
}

void CompiledLoss::check_targets(const Batch& batch,
                                 const std::vector<TensorMeta>& predictions) const {
  const auto symbolic = [](const Tensor& t) {
    return t.defined() ? Tensor::symbolic(t.meta()) : Tensor();
  };
  const Tensor sw = batch.sample_weight.empty() ? Tensor() : symbolic(batch.sample_weight[0]);
  for (size_t o = 0; o < losses_.size(); ++o) {
    try {
      (void)(*losses_[o])(symbolic(batch.y[o]), Tensor::symbolic(predictions[o]), sw, Tensor());
    } catch (const SymbolicValueError&) {
      // A loss that reads values (a custom one, for a model run eagerly) cannot be checked from
      // shapes; its first step checks it.
    } catch (const Error& e) {
      throw Error("model '" + model_.name() + "': target " + describe(batch.y[o].meta()) +
                  " does not fit output '" + model_.output_name(o) + "' " +
                  describe(predictions[o]) + " under its loss: " + e.what());
    }
  }
}

}  // namespace kiln
