#include "kiln/layers/regularizers/regularizers.h"

#include <functional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::regularizers {
namespace {

// Keras's L1, L2 and L1L2 are one penalty with some factors zero; the class name records which
// arguments the config carries.
class L1L2 : public Regularizer {
 public:
  L1L2(std::string class_name, double l1, double l2)
      : class_name_(std::move(class_name)), l1_(l1), l2_(l2) {}

  Tensor operator()(const Tensor& w) const override {
    Tensor penalty = zeros({}, w.dtype(), w.device());
    if (l1_ != 0) penalty = penalty + ops::sum(ops::abs(w)) * l1_;
    if (l2_ != 0) penalty = penalty + ops::sum(ops::square(w)) * l2_;
    return penalty;
  }
  std::string class_name() const override { return class_name_; }
  Config get_config() const override {
    Config c = Config::map();
    if (class_name_ != "L2") c.set("l1", l1_);
    if (class_name_ != "L1") c.set("l2", l2_);
    return c;
  }

 private:
  std::string class_name_;
  double l1_;
  double l2_;
};

}  // namespace

RegularizerPtr l1(double l1) {
  return std::make_shared<L1L2>("L1", l1, 0.0);
}
RegularizerPtr l2(double l2) {
  return std::make_shared<L1L2>("L2", 0.0, l2);
}
RegularizerPtr l1_l2(double l1, double l2) {
  return std::make_shared<L1L2>("L1L2", l1, l2);
}

namespace {

// A regularizer by name takes Keras's defaults; from a config, its arguments (absent ones 0 for
// L1L2, as Keras's constructor has them).
struct RegularizerKind {
  std::function<RegularizerPtr()> by_name;
  std::function<RegularizerPtr(const Config&)> from_arguments;
};

const NamedRegistry<RegularizerKind>& registry() {
  static const NamedRegistry<RegularizerKind> r = [] {
    NamedRegistry<RegularizerKind> built("regularizer");
    built.add("l1",
              {[] { return l1(); },
               [](const Config& args) {
                 args.check_keys({"l1"}, "L1");
                 return l1(args.get_double("l1", 0.01));
               }},
              {"L1"});
    built.add("l2",
              {[] { return l2(); },
               [](const Config& args) {
                 args.check_keys({"l2"}, "L2");
                 return l2(args.get_double("l2", 0.01));
               }},
              {"L2"});
    built.add("l1_l2",
              {[] { return l1_l2(); },
               [](const Config& args) {
                 args.check_keys({"l1", "l2"}, "L1L2");
                 return l1_l2(args.get_double("l1", 0.0), args.get_double("l2", 0.0));
               }},
              {"L1L2"});
    return built;
  }();
  return r;
}

}  // namespace

RegularizerPtr get(std::string_view name) {
  return registry().get(name).by_name();
}

RegularizerPtr from_config(const Config& config) {
  if (config.is_null()) return nullptr;
  if (config.is_string()) return get(config.as_string());
  const KerasObject object = read_keras_object(config, "a regularizer");
  return registry()
      .get(object.class_name.as_string(), object.class_name.where())
      .from_arguments(object.arguments);
}

Config serialize(const Regularizer& regularizer) {
  return serialize_keras_object("keras.regularizers", regularizer.class_name(),
                                regularizer.get_config());
}

std::vector<std::string> known_names() {
  return registry().names();
}

}  // namespace kiln::regularizers
