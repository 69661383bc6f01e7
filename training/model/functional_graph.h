#pragma once
// The layer-call graph of a functional model: the records between its Inputs and outputs in an
// order where every record follows the records it reads. Running it calls each layer once per
// record, so a shared layer runs once per use.
#include <map>
#include <memory>
#include <vector>

#include "kiln/layers/keras_tensor.h"
#include "kiln/layers/layer.h"

namespace kiln {

class FunctionalGraph {
 public:
  FunctionalGraph(std::vector<layers::KerasTensor> inputs, std::vector<layers::KerasTensor> outputs,
                  const std::string& model_name);

  // Values (and masks, possibly empty) of the outputs for values of the inputs.
  struct Result {
    std::vector<Tensor> outputs;
    std::vector<Tensor> masks;
  };
  Result run(const std::vector<Tensor>& inputs, const layers::CallContext& context) const;

  const std::vector<layers::KerasTensor>& inputs() const { return inputs_; }
  const std::vector<layers::KerasTensor>& outputs() const { return outputs_; }
  // Records in run order, Inputs first.
  const std::vector<std::shared_ptr<const layers::CallRecord>>& records() const { return records_; }
  // Each layer once, in first-use order (InputLayers included, as Keras lists them).
  std::vector<layers::LayerPtr> layers() const;
  // Which of its layer's calls in this graph a record is, counted in the order the calls were
  // made (Keras's node index: "dense[1][0]" is the second call of dense, its first output).
  size_t node_index(const layers::CallRecord& record) const;

 private:
  std::vector<layers::KerasTensor> inputs_;
  std::vector<layers::KerasTensor> outputs_;
  std::vector<std::shared_ptr<const layers::CallRecord>> records_;
  std::map<const layers::CallRecord*, size_t> node_index_;
};

}  // namespace kiln
