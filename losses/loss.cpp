#include "kiln/losses/loss.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/loss_fields.h"
#include "kiln/losses/prepare.h"

namespace kiln::losses {

Tensor Loss::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                        const Tensor& mask) const {
  KILN_CHECK(y_true.defined() && y_pred.defined(), "loss '", name_,
             "': y_true and y_pred must be defined");
  // Predictions (and float labels) computed in float32 at least, so a mixed-precision model's
  // float16 outputs do not lose the loss's precision; integer labels stay for sparse losses.
  const Tensor pred = internal::prediction(y_pred);
  const Tensor labels = is_floating(y_true.dtype()) ? ops::cast(y_true, pred.dtype()) : y_true;
  const MaskedLosses losses = call_masked(labels, pred);
  Tensor combined = mask;
  if (losses.mask.defined())
    combined = mask.defined() ? ops::logical_and(mask, losses.mask) : losses.mask;
  return reduce_weighted_values(losses.values, sample_weight, combined, reduction_, name_);
}

Config Loss::get_config() const {
  return write_fields(LossOptions{.reduction = reduction_, .name = name_}, common_loss_fields());
}

}  // namespace kiln::losses
