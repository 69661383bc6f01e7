#pragma once
// The Keras loss classes, with Keras's constructor arguments, defaults and names:
//
//   losses::CategoricalCrossentropy cce(/*from_logits=*/true);
//   Tensor loss = cce(labels, logits);                   // the mean over the batch
//   Tensor weighted = cce(labels, logits, sample_weight);
//
// Each class's from_config reads what its get_config writes (unknown keys are errors), and
// registry.h finds them by Keras name.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kiln/losses/loss.h"

namespace kiln::losses {

// A loss whose per-sample values come from a function of (y_true, y_pred), after Keras's
// squeeze_or_expand_to_same_rank: the built-ins without arguments of their own, and losses
// registered by name with register_loss (Keras's LossFunctionWrapper).
class LossFunctionWrapper : public Loss {
 public:
  using Function = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;
  LossFunctionWrapper(Function fn, std::string class_name, std::string name, Reduction reduction);
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return class_name_; }

 private:
  Function fn_;
  std::string class_name_;
};

class MeanSquaredError final : public LossFunctionWrapper {
 public:
  explicit MeanSquaredError(Reduction reduction = Reduction::sum_over_batch_size,
                            std::string name = "mean_squared_error");
  static LossPtr from_config(const Config& config);
};

class MeanAbsoluteError final : public LossFunctionWrapper {
 public:
  explicit MeanAbsoluteError(Reduction reduction = Reduction::sum_over_batch_size,
                             std::string name = "mean_absolute_error");
  static LossPtr from_config(const Config& config);
};

class MeanAbsolutePercentageError final : public LossFunctionWrapper {
 public:
  explicit MeanAbsolutePercentageError(Reduction reduction = Reduction::sum_over_batch_size,
                                       std::string name = "mean_absolute_percentage_error");
  static LossPtr from_config(const Config& config);
};

class LogCosh final : public LossFunctionWrapper {
 public:
  explicit LogCosh(Reduction reduction = Reduction::sum_over_batch_size,
                   std::string name = "log_cosh");
  static LossPtr from_config(const Config& config);
};

class Hinge final : public LossFunctionWrapper {
 public:
  explicit Hinge(Reduction reduction = Reduction::sum_over_batch_size, std::string name = "hinge");
  static LossPtr from_config(const Config& config);
};

class KLDivergence final : public LossFunctionWrapper {
 public:
  explicit KLDivergence(Reduction reduction = Reduction::sum_over_batch_size,
                        std::string name = "kl_divergence");
  static LossPtr from_config(const Config& config);
};

class Huber final : public Loss {
 public:
  explicit Huber(double delta = 1.0, Reduction reduction = Reduction::sum_over_batch_size,
                 std::string name = "huber_loss");
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Huber"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  double delta() const { return delta_; }

 private:
  double delta_;
};

class CosineSimilarity final : public Loss {
 public:
  explicit CosineSimilarity(int64_t axis = -1, Reduction reduction = Reduction::sum_over_batch_size,
                            std::string name = "cosine_similarity");
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CosineSimilarity"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  int64_t axis() const { return axis_; }

 private:
  int64_t axis_;
};

// The arguments and config BinaryCrossentropy and CategoricalCrossentropy share.
class CrossentropyLoss : public Loss {
 public:
  Config get_config() const override;
  bool from_logits() const { return from_logits_; }
  double label_smoothing() const { return label_smoothing_; }
  int64_t axis() const { return axis_; }

 protected:
  CrossentropyLoss(bool from_logits, double label_smoothing, int64_t axis, Reduction reduction,
                   std::string name);

 private:
  bool from_logits_;
  double label_smoothing_;
  int64_t axis_;
};

class BinaryCrossentropy final : public CrossentropyLoss {
 public:
  explicit BinaryCrossentropy(bool from_logits = false, double label_smoothing = 0.0,
                              int64_t axis = -1,
                              Reduction reduction = Reduction::sum_over_batch_size,
                              std::string name = "binary_crossentropy");
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "BinaryCrossentropy"; }
  static LossPtr from_config(const Config& config);
};

class CategoricalCrossentropy final : public CrossentropyLoss {
 public:
  explicit CategoricalCrossentropy(bool from_logits = false, double label_smoothing = 0.0,
                                   int64_t axis = -1,
                                   Reduction reduction = Reduction::sum_over_batch_size,
                                   std::string name = "categorical_crossentropy");
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalCrossentropy"; }
  static LossPtr from_config(const Config& config);
};

// Positions labelled ignore_class get a loss of 0 and are left out of the mean.
class SparseCategoricalCrossentropy final : public Loss {
 public:
  explicit SparseCategoricalCrossentropy(bool from_logits = false,
                                         std::optional<int64_t> ignore_class = std::nullopt,
                                         Reduction reduction = Reduction::sum_over_batch_size,
                                         std::string name = "sparse_categorical_crossentropy");
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "SparseCategoricalCrossentropy"; }
  Config get_config() const override;
  static LossPtr from_config(const Config& config);
  bool from_logits() const { return from_logits_; }
  std::optional<int64_t> ignore_class() const { return ignore_class_; }

 protected:
  MaskedLosses call_masked(const Tensor& y_true, const Tensor& y_pred) const override;

 private:
  bool from_logits_;
  std::optional<int64_t> ignore_class_;
};

}  // namespace kiln::losses
