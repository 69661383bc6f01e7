#include "kiln/losses/losses.h"

#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/losses/functional.h"

namespace kiln::losses {
namespace {

Reduction reduction_of(const Config& config, const Loss& defaults) {
  return reduction_from_config(config, defaults.reduction());
}

std::string name_of(const Config& config, const Loss& defaults) {
  return config.get_string("name", defaults.name());
}

// from_config of the losses whose config is only a name and a reduction.
template <typename L>
LossPtr from_name_and_reduction(const Config& config) {
  const L defaults;
  config.check_keys({"name", "reduction"}, defaults.class_name());
  return std::make_shared<L>(reduction_of(config, defaults), name_of(config, defaults));
}

}  // namespace

LossFunctionWrapper::LossFunctionWrapper(Function fn, std::string class_name, std::string name,
                                         Reduction reduction)
    : Loss(std::move(name), reduction), fn_(std::move(fn)), class_name_(std::move(class_name)) {
  KILN_CHECK(fn_ != nullptr, "loss '", this->name(), "': no function");
}

Tensor LossFunctionWrapper::call(const Tensor& y_true, const Tensor& y_pred) const {
  const auto [t, p] = squeeze_or_expand_to_same_rank(y_true, y_pred);
  return fn_(t, p);
}

MeanSquaredError::MeanSquaredError(Reduction reduction, std::string name)
    : LossFunctionWrapper(mean_squared_error, "MeanSquaredError", std::move(name), reduction) {}
LossPtr MeanSquaredError::from_config(const Config& config) {
  return from_name_and_reduction<MeanSquaredError>(config);
}

MeanAbsoluteError::MeanAbsoluteError(Reduction reduction, std::string name)
    : LossFunctionWrapper(mean_absolute_error, "MeanAbsoluteError", std::move(name), reduction) {}
LossPtr MeanAbsoluteError::from_config(const Config& config) {
  return from_name_and_reduction<MeanAbsoluteError>(config);
}

MeanAbsolutePercentageError::MeanAbsolutePercentageError(Reduction reduction, std::string name)
    : LossFunctionWrapper(mean_absolute_percentage_error, "MeanAbsolutePercentageError",
                          std::move(name), reduction) {}
LossPtr MeanAbsolutePercentageError::from_config(const Config& config) {
  return from_name_and_reduction<MeanAbsolutePercentageError>(config);
}

LogCosh::LogCosh(Reduction reduction, std::string name)
    : LossFunctionWrapper(log_cosh, "LogCosh", std::move(name), reduction) {}
LossPtr LogCosh::from_config(const Config& config) {
  return from_name_and_reduction<LogCosh>(config);
}

Hinge::Hinge(Reduction reduction, std::string name)
    : LossFunctionWrapper(hinge, "Hinge", std::move(name), reduction) {}
LossPtr Hinge::from_config(const Config& config) {
  return from_name_and_reduction<Hinge>(config);
}

KLDivergence::KLDivergence(Reduction reduction, std::string name)
    : LossFunctionWrapper(kl_divergence, "KLDivergence", std::move(name), reduction) {}
LossPtr KLDivergence::from_config(const Config& config) {
  return from_name_and_reduction<KLDivergence>(config);
}

// ---- losses with arguments ----

Huber::Huber(double delta, Reduction reduction, std::string name)
    : Loss(std::move(name), reduction), delta_(delta) {
  KILN_CHECK(delta > 0, "Huber '", this->name(), "': delta must be positive, got ", delta);
}
Tensor Huber::call(const Tensor& y_true, const Tensor& y_pred) const {
  return huber(y_true, y_pred, delta_);
}
Config Huber::get_config() const {
  return Loss::get_config().set("delta", delta_);
}
LossPtr Huber::from_config(const Config& config) {
  const Huber d;
  config.check_keys({"name", "reduction", "delta"}, d.class_name());
  return std::make_shared<Huber>(config.get_double("delta", d.delta()), reduction_of(config, d),
                                 name_of(config, d));
}

CosineSimilarity::CosineSimilarity(int64_t axis, Reduction reduction, std::string name)
    : Loss(std::move(name), reduction), axis_(axis) {}
Tensor CosineSimilarity::call(const Tensor& y_true, const Tensor& y_pred) const {
  return cosine_similarity(y_true, y_pred, axis_);
}
Config CosineSimilarity::get_config() const {
  return Loss::get_config().set("axis", axis_);
}
LossPtr CosineSimilarity::from_config(const Config& config) {
  const CosineSimilarity d;
  config.check_keys({"name", "reduction", "axis"}, d.class_name());
  return std::make_shared<CosineSimilarity>(config.get_int("axis", d.axis()),
                                            reduction_of(config, d), name_of(config, d));
}

CrossentropyLoss::CrossentropyLoss(bool from_logits, double label_smoothing, int64_t axis,
                                   Reduction reduction, std::string name)
    : Loss(std::move(name), reduction),
      from_logits_(from_logits),
      label_smoothing_(label_smoothing),
      axis_(axis) {
  KILN_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "loss '", this->name(),
             "': label_smoothing must be in [0, 1], got ", label_smoothing);
}
Config CrossentropyLoss::get_config() const {
  return Loss::get_config()
      .set("from_logits", from_logits_)
      .set("label_smoothing", label_smoothing_)
      .set("axis", axis_);
}

namespace {
template <typename L>
LossPtr crossentropy_from_config(const Config& config) {
  const L d;
  config.check_keys({"name", "reduction", "from_logits", "label_smoothing", "axis"},
                    d.class_name());
  return std::make_shared<L>(config.get_bool("from_logits", d.from_logits()),
                             config.get_double("label_smoothing", d.label_smoothing()),
                             config.get_int("axis", d.axis()), reduction_of(config, d),
                             name_of(config, d));
}
}  // namespace

BinaryCrossentropy::BinaryCrossentropy(bool from_logits, double label_smoothing, int64_t axis,
                                       Reduction reduction, std::string name)
    : CrossentropyLoss(from_logits, label_smoothing, axis, reduction, std::move(name)) {}
Tensor BinaryCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return binary_crossentropy(y_true, y_pred, from_logits(), label_smoothing(), axis());
}
LossPtr BinaryCrossentropy::from_config(const Config& config) {
  return crossentropy_from_config<BinaryCrossentropy>(config);
}

CategoricalCrossentropy::CategoricalCrossentropy(bool from_logits, double label_smoothing,
                                                 int64_t axis, Reduction reduction,
                                                 std::string name)
    : CrossentropyLoss(from_logits, label_smoothing, axis, reduction, std::move(name)) {}
Tensor CategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return categorical_crossentropy(y_true, y_pred, from_logits(), label_smoothing(), axis());
}
LossPtr CategoricalCrossentropy::from_config(const Config& config) {
  return crossentropy_from_config<CategoricalCrossentropy>(config);
}

SparseCategoricalCrossentropy::SparseCategoricalCrossentropy(bool from_logits,
                                                             std::optional<int64_t> ignore_class,
                                                             Reduction reduction, std::string name)
    : Loss(std::move(name), reduction), from_logits_(from_logits), ignore_class_(ignore_class) {}
Tensor SparseCategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return sparse_categorical_crossentropy(y_true, y_pred, from_logits_, ignore_class_);
}
MaskedLosses SparseCategoricalCrossentropy::call_masked(const Tensor& y_true,
                                                        const Tensor& y_pred) const {
  return sparse_categorical_crossentropy_masked(y_true, y_pred, from_logits_, ignore_class_);
}
Config SparseCategoricalCrossentropy::get_config() const {
  return Loss::get_config()
      .set("from_logits", from_logits_)
      .set("ignore_class", ignore_class_ ? Config(*ignore_class_) : Config());
}
LossPtr SparseCategoricalCrossentropy::from_config(const Config& config) {
  const SparseCategoricalCrossentropy d;
  config.check_keys({"name", "reduction", "from_logits", "ignore_class"}, d.class_name());
  std::optional<int64_t> ignore_class;
  if (const Config* value = config.find("ignore_class"); value != nullptr && !value->is_null())
    ignore_class = value->as_int();
  return std::make_shared<SparseCategoricalCrossentropy>(
      config.get_bool("from_logits", d.from_logits()), ignore_class, reduction_of(config, d),
      name_of(config, d));
}

}  // namespace kiln::losses
