#pragma once
// The Keras loss classes, with Keras's constructor arguments, defaults and names:
//
//   losses::CategoricalCrossentropy cce({.from_logits = true});
//   Tensor loss = cce(labels, logits);                   // the mean over the batch
//   Tensor weighted = cce(labels, logits, sample_weight);
//
// Options structs take Keras's arguments as designated initializers, the common ones (reduction,
// name) last. Each class's get_config and from_config come from one field table over its
// options (loss_fields.h; unknown keys are errors), and registry.h finds them by Keras name.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/losses/loss.h"

namespace kiln::losses {

// A loss whose per-sample values come from a function of (y_true, y_pred), after Keras's
// squeeze_or_expand_to_same_rank: the built-ins without arguments of their own, and losses
// registered by name with register_loss (Keras's LossFunctionWrapper).
class LossFunctionWrapper : public Loss {
 public:
  using Function = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;
  // `options.name` empty: `class_name`.
  LossFunctionWrapper(Function fn, std::string class_name, LossOptions options);
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return class_name_; }

 private:
  Function fn_;
  std::string class_name_;
};

class MeanSquaredError final : public LossFunctionWrapper {
 public:
  explicit MeanSquaredError(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

class MeanAbsoluteError final : public LossFunctionWrapper {
 public:
  explicit MeanAbsoluteError(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

class MeanAbsolutePercentageError final : public LossFunctionWrapper {
 public:
  explicit MeanAbsolutePercentageError(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

class LogCosh final : public LossFunctionWrapper {
 public:
  explicit LogCosh(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

class Hinge final : public LossFunctionWrapper {
 public:
  explicit Hinge(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

class KLDivergence final : public LossFunctionWrapper {
 public:
  explicit KLDivergence(LossOptions options = {});
  static LossPtr from_config(const Config& config);
};

struct HuberOptions {
  double delta = 1.0;
  KILN_LOSS_ARGS_FIELDS
};

class Huber final : public Loss {
 public:
  explicit Huber(HuberOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Huber"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  double delta() const { return options_.delta; }

 private:
  HuberOptions options_;
};

struct CosineSimilarityOptions {
  int64_t axis = -1;
  KILN_LOSS_ARGS_FIELDS
};

class CosineSimilarity final : public Loss {
 public:
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CosineSimilarity"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  int64_t axis() const { return options_.axis; }

 private:
  CosineSimilarityOptions options_;
};

// The arguments BinaryCrossentropy and CategoricalCrossentropy share.
struct CrossentropyOptions {
  bool from_logits = false;
  double label_smoothing = 0.0;  // in [0, 1]
  int64_t axis = -1;
  KILN_LOSS_ARGS_FIELDS
};

class CrossentropyLoss : public Loss {
 public:
  Config get_config() const override;
  bool from_logits() const { return options_.from_logits; }
  double label_smoothing() const { return options_.label_smoothing; }
  int64_t axis() const { return options_.axis; }

 protected:
  // `options.name` empty: `default_name`.
  CrossentropyLoss(CrossentropyOptions options, std::string_view default_name);

 private:
  CrossentropyOptions options_;
};

class BinaryCrossentropy final : public CrossentropyLoss {
 public:
  explicit BinaryCrossentropy(CrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryCrossentropy"; }
  static LossPtr from_config(const Config& config);
};

class CategoricalCrossentropy final : public CrossentropyLoss {
 public:
  explicit CategoricalCrossentropy(CrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalCrossentropy"; }
  static LossPtr from_config(const Config& config);
};

struct SparseCategoricalCrossentropyOptions {
  bool from_logits = false;
  // Positions labelled ignore_class get a loss of 0 and are left out of the mean.
  std::optional<int64_t> ignore_class = std::nullopt;
  KILN_LOSS_ARGS_FIELDS
};

class SparseCategoricalCrossentropy final : public Loss {
 public:
  explicit SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "SparseCategoricalCrossentropy"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  bool from_logits() const { return options_.from_logits; }
  std::optional<int64_t> ignore_class() const { return options_.ignore_class; }

 protected:
  MaskedLosses call_masked(const Tensor& y_true, const Tensor& y_pred) const override;

 private:
  SparseCategoricalCrossentropyOptions options_;
};

}  // namespace kiln::losses
