#pragma once
// Keras metrics: streaming state in Variables (so update_state traced into a train step runs in
// the graph and never retraces), a result computed from the state, and a reset between epochs.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/tensor/tensor.h"
#include "kiln/framework/tensor/variable.h"

namespace kiln::metrics {

class Metric {
 public:
  explicit Metric(std::string name) : name_(std::move(name)) {}
  virtual ~Metric() = default;

  // Accumulates one batch. sample_weight broadcasts against the per-sample values (undefined =
  // 1). Eager or traced.
  virtual void update_state(const Tensor& y_true, const Tensor& y_pred,
                            const Tensor& sample_weight = {}) = 0;
  // The metric's value from the state (float32 scalar; eager or traced).
  virtual Tensor result() const = 0;
  // Zeroes every state variable (eagerly, between epochs).
  virtual void reset_state();

  const std::string& name() const { return name_; }
  virtual std::string class_name() const = 0;  // "SparseCategoricalAccuracy"
  virtual Config get_config() const;           // {"name": ..., "dtype": "float32", ...}
  const std::vector<Variable>& variables() const { return variables_; }

 protected:
  // Creates a zero-filled state variable named "<metric name>/<name>".
  Variable add_variable(const std::string& name, const Shape& shape = {}, DType dtype = DType::f32);
  // Runs `update`, prefixing any error with this metric's class, name and argument shapes, so a
  // failure inside a train step says which metric and which inputs it was.
  void with_error_context(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                          const std::function<void()>& update) const;

 private:
  std::string name_;
  std::vector<Variable> variables_;
};

using MetricPtr = std::shared_ptr<Metric>;

}  // namespace kiln::metrics
