#include "kiln/losses/losses.h"

#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/losses/functional.h"
#include "kiln/losses/loss_fields.h"

namespace kiln::losses {
namespace {

template <typename L>
LossPtr from_common_fields(const Config& config, std::string_view class_name) {
  return std::make_shared<L>(read_fields(config, common_loss_fields(), class_name));
}

}  // namespace

LossFunctionWrapper::LossFunctionWrapper(Function fn, std::string class_name, LossOptions options)
    : Loss(name_or(options.name, class_name), options.reduction),
      fn_(std::move(fn)),
      class_name_(std::move(class_name)) {
  KILN_CHECK(fn_ != nullptr, "loss '", this->name(), "': no function");
}

Tensor LossFunctionWrapper::call(const Tensor& y_true, const Tensor& y_pred) const {
  const auto [t, p] = squeeze_or_expand_to_same_rank(y_true, y_pred);
  return fn_(t, p);
}

// Each built-in's Keras name is its default name.
#define KILN_FUNCTION_LOSS(Class, function, keras_name)                                     \
  Class::Class(LossOptions options)                                                         \
      : LossFunctionWrapper(                                                                \
            function, #Class,                                                               \
            {.reduction = options.reduction, .name = name_or(options.name, keras_name)}) {} \
  LossPtr Class::from_config(const Config& config) {                                        \
    return from_common_fields<Class>(config, #Class);                                       \
  }

KILN_FUNCTION_LOSS(MeanSquaredError, mean_squared_error, "mean_squared_error")
KILN_FUNCTION_LOSS(MeanAbsoluteError, mean_absolute_error, "mean_absolute_error")
KILN_FUNCTION_LOSS(MeanAbsolutePercentageError, mean_absolute_percentage_error,
                   "mean_absolute_percentage_error")
KILN_FUNCTION_LOSS(LogCosh, log_cosh, "log_cosh")
KILN_FUNCTION_LOSS(Hinge, hinge, "hinge")
KILN_FUNCTION_LOSS(KLDivergence, kl_divergence, "kl_divergence")
#undef KILN_FUNCTION_LOSS

// ---- losses with arguments ----

namespace {

const FieldTable<HuberOptions>& huber_fields() {
  static const FieldTable<HuberOptions> table =
      loss_fields<HuberOptions>({field("delta", &HuberOptions::delta)});
  return table;
}

const FieldTable<CosineSimilarityOptions>& cosine_fields() {
  static const FieldTable<CosineSimilarityOptions> table =
      loss_fields<CosineSimilarityOptions>({field("axis", &CosineSimilarityOptions::axis)});
  return table;
}

const FieldTable<CrossentropyOptions>& crossentropy_fields() {
  static const FieldTable<CrossentropyOptions> table = loss_fields<CrossentropyOptions>(
      {field("from_logits", &CrossentropyOptions::from_logits),
       field("label_smoothing", &CrossentropyOptions::label_smoothing),
       field("axis", &CrossentropyOptions::axis)});
  return table;
}

using SparseOptions = SparseCategoricalCrossentropyOptions;

const FieldTable<SparseOptions>& sparse_fields() {
  static const FieldTable<SparseOptions> table =
      loss_fields<SparseOptions>({field("from_logits", &SparseOptions::from_logits),
                                  field("ignore_class", &SparseOptions::ignore_class)});
  return table;
}

}  // namespace

Huber::Huber(HuberOptions options)
    : Loss(name_or(options.name, "huber_loss"), options.reduction), options_(std::move(options)) {
  options_.name = name();
  KILN_CHECK(options_.delta > 0, "Huber '", name(), "': delta must be positive, got ",
             options_.delta);
}
Tensor Huber::call(const Tensor& y_true, const Tensor& y_pred) const {
  return huber(y_true, y_pred, options_.delta);
}
Config Huber::get_config() const {
  return write_fields(options_, huber_fields());
}
LossPtr Huber::from_config(const Config& config) {
  return std::make_shared<Huber>(read_fields(config, huber_fields(), "Huber"));
}

CosineSimilarity::CosineSimilarity(CosineSimilarityOptions options)
    : Loss(name_or(options.name, "cosine_similarity"), options.reduction),
      options_(std::move(options)) {
  options_.name = name();
}
Tensor CosineSimilarity::call(const Tensor& y_true, const Tensor& y_pred) const {
  return cosine_similarity(y_true, y_pred, options_.axis);
}
Config CosineSimilarity::get_config() const {
  return write_fields(options_, cosine_fields());
}
LossPtr CosineSimilarity::from_config(const Config& config) {
  return std::make_shared<CosineSimilarity>(
      read_fields(config, cosine_fields(), "CosineSimilarity"));
}

CrossentropyLoss::CrossentropyLoss(CrossentropyOptions options, std::string_view default_name)
    : Loss(name_or(options.name, default_name), options.reduction), options_(std::move(options)) {
  options_.name = name();
  KILN_CHECK(options_.label_smoothing >= 0 && options_.label_smoothing <= 1, "loss '", name(),
             "': label_smoothing must be in [0, 1], got ", options_.label_smoothing);
}
Config CrossentropyLoss::get_config() const {
  return write_fields(options_, crossentropy_fields());
}

BinaryCrossentropy::BinaryCrossentropy(CrossentropyOptions options)
    : CrossentropyLoss(std::move(options), "binary_crossentropy") {}
Tensor BinaryCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return binary_crossentropy(y_true, y_pred, from_logits(), label_smoothing(), axis());
}
LossPtr BinaryCrossentropy::from_config(const Config& config) {
  return std::make_shared<BinaryCrossentropy>(
      read_fields(config, crossentropy_fields(), "BinaryCrossentropy"));
}

CategoricalCrossentropy::CategoricalCrossentropy(CrossentropyOptions options)
    : CrossentropyLoss(std::move(options), "categorical_crossentropy") {}
Tensor CategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return categorical_crossentropy(y_true, y_pred, from_logits(), label_smoothing(), axis());
}
LossPtr CategoricalCrossentropy::from_config(const Config& config) {
  return std::make_shared<CategoricalCrossentropy>(
      read_fields(config, crossentropy_fields(), "CategoricalCrossentropy"));
}

SparseCategoricalCrossentropy::SparseCategoricalCrossentropy(SparseOptions options)
    : Loss(name_or(options.name, "sparse_categorical_crossentropy"), options.reduction),
      options_(std::move(options)) {
  options_.name = name();
}
Tensor SparseCategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  return sparse_categorical_crossentropy(y_true, y_pred, options_.from_logits,
                                         options_.ignore_class);
}
MaskedLosses SparseCategoricalCrossentropy::call_masked(const Tensor& y_true,
                                                        const Tensor& y_pred) const {
  return sparse_categorical_crossentropy_masked(y_true, y_pred, options_.from_logits,
                                                options_.ignore_class);
}
Config SparseCategoricalCrossentropy::get_config() const {
  return write_fields(options_, sparse_fields());
}
LossPtr SparseCategoricalCrossentropy::from_config(const Config& config) {
  return std::make_shared<SparseCategoricalCrossentropy>(
      read_fields(config, sparse_fields(), "SparseCategoricalCrossentropy"));
}

}  // namespace kiln::losses
