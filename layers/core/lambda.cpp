#include "kiln/layers/core/lambda.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

NamedRegistry<LambdaFunction>& lambda_registry() {
  static NamedRegistry<LambdaFunction> r("Lambda function", nullptr,
                                         "register it with kiln::layers::register_lambda(name, fn)");
  return r;
}

// Keras writes a registered function as {"module": "builtins", "class_name": "function",
// "config": name, "registered_name": "function"}; a bare name is accepted too.
std::string function_name_of(const Config& function) {
  if (function.is_string()) return function.as_string();
  KILN_CHECK(function.is_map() && function.contains("config") && function["config"].is_string(),
             function.where(),
             "Lambda: only functions registered by name can be loaded (Python lambdas and their "
             "bytecode cannot); register one with kiln::layers::register_lambda(name, fn)");
  return function["config"].as_string();
}

}  // namespace

void register_lambda(const std::string& name, LambdaFunction fn) {
  KILN_CHECK(fn != nullptr, "register_lambda: the function for '", name, "' is empty");
  lambda_registry().add(name, std::move(fn));
}

bool is_registered_lambda(const std::string& name) {
  return lambda_registry().contains(name);
}

Lambda::Lambda(LambdaFunction fn, LambdaOptions options)
    : Layer(options.layer_args()), fn_(std::move(fn)) {
  KILN_CHECK(fn_ != nullptr, "Lambda: the function is empty");
}

Lambda::Lambda(const std::string& registered_name, LambdaOptions options)
    : Layer(options.layer_args()),
      fn_(lambda_registry().get(registered_name)),
      registered_name_(registered_name) {}

std::vector<Tensor> Lambda::call(const std::vector<Tensor>& inputs, const CallContext&) {
  KILN_CHECK(inputs.size() == 1, "Lambda takes one input, got ", inputs.size());
  return {fn_(inputs[0])};
}

Config Lambda::get_config() const {
  KILN_CHECK(!registered_name_.empty(), "Lambda layer '", name(),
             "' wraps an unnamed C++ function, which cannot be serialized; register it with "
             "kiln::layers::register_lambda(name, fn) and build the layer as Lambda(name)");
  return Layer::get_config()
      .set("function", Config::map()
                           .set("module", "builtins")
                           .set("class_name", "function")
                           .set("config", registered_name_)
                           .set("registered_name", "function"))
      .set("arguments", Config::map());
}

LayerPtr Lambda::from_config(const Config& c) {
  check_layer_keys(c, {"function", "arguments", "output_shape", "mask"}, "Lambda");
  // Keras passes `arguments` as keyword arguments to the function; kiln functions take one
  // tensor, and masks and output shapes are computed, not given.
  KILN_CHECK(!c.contains("arguments") || c["arguments"].is_null() || c["arguments"].size() == 0,
             c["arguments"].where(), "Lambda: 'arguments' are not supported; capture them in the ",
             "registered function");
  KILN_CHECK(!c.contains("mask") || c["mask"].is_null(), c["mask"].where(),
             "Lambda: 'mask' is not supported");
  LambdaOptions o;
  read_layer_args(c, o);
  return std::make_shared<Lambda>(function_name_of(c["function"]), std::move(o));
}

}  // namespace kiln::layers
