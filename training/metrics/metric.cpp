#include "kiln/training/metrics/metric.h"

#include "kiln/framework/core/dtype.h"
#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/dispatch.h"

namespace kiln::metrics {

void Metric::reset_state() {
  // Zeros made where the state lives: no copy to a GPU per reset.
  for (const Variable& v : variables_) v.assign(zeros(v.shape(), v.dtype(), v.meta().device));
}

Config Metric::get_config() const {
  return Config::map().set("name", name_).set("dtype", "float32");
}

Variable Metric::add_variable(const std::string& name, const Shape& shape, DType dtype) {
  // Metric state is never trained: the optimizer must not see it.
  Variable v(zeros(shape, dtype), name_ + "/" + name, /*trainable=*/false);
  variables_.push_back(v);
  return v;
}

void Metric::with_error_context(const Tensor& y_true, const Tensor& y_pred,
                                const Tensor& sample_weight,
                                const std::function<void()>& update) const {
  try {
    update();
  } catch (const Error& e) {
    const auto meta = [](const Tensor& t) { return t.defined() ? describe(t.meta()) : "none"; };
    throw Error(detail::concat(class_name(), " '", name_, "'.update_state(y_true: ", meta(y_true),
                               ", y_pred: ", meta(y_pred), ", sample_weight: ", meta(sample_weight),
                               "): ", e.what()));
  }
}

}  // namespace kiln::metrics
