#include "kiln/training/model/epoch_batches.h"

namespace kiln {

void EpochBatches::begin_epoch(int epoch, int64_t skip) {
  if (steps_per_epoch_ <= 0) {
    pass_.emplace(data_.iterator(first_pass_ + static_cast<uint64_t>(epoch)));
  } else if (!pass_) {
    // The one pass starts where epoch `epoch` of it does, so a resume continues it.
    pass_.emplace(data_.iterator(first_pass_));
    skip += epoch * steps_per_epoch_;
  } else {
    return;
  }
  for (int64_t i = 0; i < skip && pass_->next(); ++i) {
  }
}

std::optional<datasets::Element> EpochBatches::next(int64_t step) {
  if (steps_per_epoch_ > 0 && step >= steps_per_epoch_) return std::nullopt;
  std::optional<datasets::Element> e = pass_->next();
  if (!e && steps_per_epoch_ > 0) ran_out_ = true;
  return e;
}

}  // namespace kiln
