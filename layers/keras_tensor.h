#pragma once
// KerasTensor: a symbolic batch in a functional model under construction. It carries the spec
// (dtype, shape with an unknown batch dim) and the layer call that produced it; a functional
// Model walks these records from its outputs back to its Inputs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kiln/framework/tensor/tensor.h"

namespace kiln::layers {

class Layer;
struct CallRecord;

class KerasTensor {
 public:
  KerasTensor() = default;
  KerasTensor(TensorMeta meta, std::shared_ptr<const CallRecord> record, size_t index)
      : meta_(std::move(meta)), record_(std::move(record)), index_(index) {}

  bool defined() const { return record_ != nullptr; }
  const TensorMeta& meta() const { return meta_; }
  const Shape& shape() const { return meta_.shape; }
  DType dtype() const { return meta_.dtype; }
  int rank() const { return meta_.shape.rank(); }
  // The call that produced this tensor, and which of its outputs it is.
  const std::shared_ptr<const CallRecord>& record() const { return record_; }
  size_t index() const { return index_; }

 private:
  TensorMeta meta_;
  std::shared_ptr<const CallRecord> record_;
  size_t index_ = 0;
};

// A process-wide count of layer calls, in the order they were made.
uint64_t next_call_serial();

// One layer applied to symbolic inputs: a node of a functional model's graph. An Input's record
// has an InputLayer and no inputs.
struct CallRecord {
  std::shared_ptr<Layer> layer;
  std::vector<KerasTensor> inputs;
  std::vector<TensorMeta> outputs;
  // When the call was made: a layer's calls within a model are numbered in this order (Keras's
  // node index), whatever order the model's graph runs them in.
  uint64_t serial = next_call_serial();
};

}  // namespace kiln::layers
