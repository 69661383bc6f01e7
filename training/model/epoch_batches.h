#pragma once
// The batches fit trains on, epoch by epoch. Without steps_per_epoch each epoch is pass
// `first_pass + epoch` of the data, so a resumed run sees the same order and a later fit call a
// new one (a shuffle reshuffles, as a new tf.data iteration does). With it, as in Keras, one pass
// runs on across epochs: a repeated dataset's later batches come in later epochs instead of every
// epoch starting over, and running out of data ends the epoch early.
#include <cstdint>
#include <optional>

#include "kiln/datasets/dataset.h"

namespace kiln {

class EpochBatches {
 public:
  EpochBatches(datasets::Dataset data, int64_t steps_per_epoch, uint64_t first_pass)
      : data_(std::move(data)), steps_per_epoch_(steps_per_epoch), first_pass_(first_pass) {}

  // Starts epoch `epoch` after its first `skip` batches (those trained before a resume).
  void begin_epoch(int epoch, int64_t skip);
  // The epoch's next batch once `step` batches are taken; nullopt at its end.
  std::optional<datasets::Element> next(int64_t step);
  // Whether the data ended before steps_per_epoch batches.
  bool ran_out() const { return ran_out_; }

 private:
  datasets::Dataset data_;
  int64_t steps_per_epoch_;
  uint64_t first_pass_;
  std::optional<datasets::Iterator> pass_;
  bool ran_out_ = false;
};

}  // namespace kiln
