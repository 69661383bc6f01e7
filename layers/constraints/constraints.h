#pragma once
// Keras weight constraints: a projection applied to a weight after every optimizer update
// (kernel_constraint, bias_constraint, ...). MaxNorm, MinMaxNorm, NonNeg and UnitNorm, by name
// ("max_norm") or with arguments ({MaxNorm: {max_value: 3}}).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::constraints {

class Constraint {
 public:
  virtual ~Constraint() = default;
  // The projected weight, same shape and dtype (eager or traced).
  virtual Tensor operator()(const Tensor& weight) const = 0;
  virtual std::string class_name() const = 0;  // "MaxNorm"
  virtual Config get_config() const = 0;       // Keras's arguments
};

using ConstraintPtr = std::shared_ptr<const Constraint>;

// Norms are taken over `axis` (Keras's default 0: each output unit's incoming weights of a Dense
// kernel [in, out]; use {0, 1, 2} for a Conv2D kernel's window and input channels).
ConstraintPtr max_norm(double max_value = 2.0, std::vector<int64_t> axis = {0});
ConstraintPtr min_max_norm(double min_value = 0.0, double max_value = 1.0, double rate = 1.0,
                           std::vector<int64_t> axis = {0});
ConstraintPtr non_neg();
ConstraintPtr unit_norm(std::vector<int64_t> axis = {0});

// By Keras name or class name, with default arguments; unknown names suggest close ones.
ConstraintPtr get(std::string_view name);
// A name, {MaxNorm: {max_value: 3}} or Keras's {"class_name", "config"}; null gives nullptr.
ConstraintPtr from_config(const Config& spec);
// Keras's serialized form: {"module": "keras.constraints", "class_name", "config", ...}.
Config serialize(const Constraint& constraint);
std::vector<std::string> known_names();

}  // namespace kiln::constraints
