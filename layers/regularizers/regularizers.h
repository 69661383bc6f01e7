#pragma once
// Keras weight regularizers: a penalty on a weight added to the training loss (kernel_regularizer,
// bias_regularizer). By name ("l1", "l2", "l1_l2") or config.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::regularizers {

class Regularizer {
 public:
  virtual ~Regularizer() = default;
  virtual Tensor operator()(const Tensor& weight) const = 0;  // a scalar of weight's dtype
  virtual std::string class_name() const = 0;
  virtual Config get_config() const = 0;
};

using RegularizerPtr = std::shared_ptr<const Regularizer>;

// l1 * sum(|w|) + l2 * sum(w^2), Keras's defaults 0.01 each.
RegularizerPtr l1(double l1 = 0.01);
RegularizerPtr l2(double l2 = 0.01);
RegularizerPtr l1_l2(double l1 = 0.01, double l2 = 0.01);

// "l1" / "L1" / "l2" / "L2" / "l1_l2" / "L1L2" with defaults; unknown names suggest close ones.
RegularizerPtr get(std::string_view name);
// A name, {L2: {l2: 0.001}} or Keras's {"class_name": "L2", "config": {"l2": 0.001}}; null gives
// nullptr.
RegularizerPtr from_config(const Config& config);
// Keras's serialized form: {"module": "keras.regularizers", "class_name", "config", ...}.
Config serialize(const Regularizer& regularizer);
std::vector<std::string> known_names();

}  // namespace kiln::regularizers
