#include "kiln/layers/constraints/constraints.h"

#include <functional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::constraints {
namespace {

// Keras's backend.epsilon(): keeps an all-zero slice at zero instead of dividing by zero.
constexpr double kEpsilon = 1e-7;

// An axis list as Keras writes it: a single axis as an int.
Config axis_config(const std::vector<int64_t>& axis) {
  return axis.size() == 1 ? Config(axis[0]) : Config(axis);
}

Tensor norms(const Tensor& w, const std::vector<int64_t>& axis) {
  return ops::sqrt(ops::sum(ops::square(w), axis, /*keepdims=*/true));
}

// MaxNorm and MinMaxNorm: the weight rescaled so its norms move to rate * clip(norms, min, max)
// + (1 - rate) * norms. MaxNorm is the min 0, rate 1 case; the class name says which.
class NormRange : public Constraint {
 public:
  NormRange(std::string class_name, double min_value, double max_value, double rate,
            std::vector<int64_t> axis)
      : class_name_(std::move(class_name)),
        min_value_(min_value),
        max_value_(max_value),
        rate_(rate),
        axis_(std::move(axis)) {
    KILN_CHECK(min_value_ >= 0 && min_value_ <= max_value_, class_name_,
               ": needs 0 <= min_value <= max_value, got ", min_value_, " and ", max_value_);
    KILN_CHECK(rate_ >= 0 && rate_ <= 1, class_name_, ": rate must be in [0, 1], got ", rate_);
  }

  Tensor operator()(const Tensor& w) const override {
    const Tensor n = norms(w, axis_);
    Tensor desired = ops::clip(n, min_value_, max_value_);
    if (rate_ != 1) desired = desired * rate_ + n * (1 - rate_);
    return w * (desired / (n + kEpsilon));
  }
  std::string class_name() const override { return class_name_; }
  Config get_config() const override {
    if (class_name_ == "MaxNorm")
      return Config::map().set("max_value", max_value_).set("axis", axis_config(axis_));
    return Config::map()
        .set("min_value", min_value_)
        .set("max_value", max_value_)
        .set("rate", rate_)
        .set("axis", axis_config(axis_));
  }

 private:
  std::string class_name_;
  double min_value_;
  double max_value_;
  double rate_;
  std::vector<int64_t> axis_;
};

class NonNeg : public Constraint {
 public:
  Tensor operator()(const Tensor& w) const override {
    return w * ops::cast(ops::greater_equal(w, zeros({}, w.dtype(), w.device())), w.dtype());
  }
  std::string class_name() const override { return "NonNeg"; }
  Config get_config() const override { return Config::map(); }
};

class UnitNorm : public Constraint {
 public:
  explicit UnitNorm(std::vector<int64_t> axis) : axis_(std::move(axis)) {}
  Tensor operator()(const Tensor& w) const override { return w / (norms(w, axis_) + kEpsilon); }
  std::string class_name() const override { return "UnitNorm"; }
  Config get_config() const override { return Config::map().set("axis", axis_config(axis_)); }

 private:
  std::vector<int64_t> axis_;
};

std::vector<int64_t> read_axis(const Config& args) {
  const Config* axis = args.find("axis");
  return axis == nullptr || axis->is_null() ? std::vector<int64_t>{0} : axis->as_int_list();
}

using ConstraintKind = ArgumentsFactory<ConstraintPtr>;

const NamedRegistry<ConstraintKind>& registry() {
  static const NamedRegistry<ConstraintKind> r = [] {
    NamedRegistry<ConstraintKind> built("constraint", [](std::string_view name) {
      // "MaxNorm", "max_norm" and "maxnorm" are one name.
      std::string key;
      for (char c : name)
        if (c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return key;
    });
    built.add("max_norm", {{"max_value", "axis"}, [](const Config& args) {
                             return max_norm(args.get_double("max_value", 2.0), read_axis(args));
                           }});
    built.add("min_max_norm", {{"min_value", "max_value", "rate", "axis"}, [](const Config& args) {
                                 return min_max_norm(args.get_double("min_value", 0.0),
                                                     args.get_double("max_value", 1.0),
                                                     args.get_double("rate", 1.0), read_axis(args));
                               }});
    built.add("non_neg", {{}, [](const Config&) { return non_neg(); }});
    built.add("unit_norm",
              {{"axis"}, [](const Config& args) { return unit_norm(read_axis(args)); }});
    return built;
  }();
  return r;
}

}  // namespace

ConstraintPtr max_norm(double max_value, std::vector<int64_t> axis) {
  return std::make_shared<NormRange>("MaxNorm", 0.0, max_value, 1.0, std::move(axis));
}
ConstraintPtr min_max_norm(double min_value, double max_value, double rate,
                           std::vector<int64_t> axis) {
  return std::make_shared<NormRange>("MinMaxNorm", min_value, max_value, rate, std::move(axis));
}
ConstraintPtr non_neg() {
  return std::make_shared<NonNeg>();
}
ConstraintPtr unit_norm(std::vector<int64_t> axis) {
  return std::make_shared<UnitNorm>(std::move(axis));
}

ConstraintPtr get(std::string_view name) {
  return registry().get(name).make(Config::map());
}

ConstraintPtr from_config(const Config& spec) {
  if (spec.is_null()) return nullptr;
  return make_keras_object(registry(), spec, "a constraint");
}

Config serialize(const Constraint& constraint) {
  return serialize_keras_object("keras.constraints", constraint.class_name(),
                                constraint.get_config());
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::constraints
