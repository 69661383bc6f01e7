#include "kiln/layers/core/lambda.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
namespace {

NamedRegistry<LambdaFunction>& lambda_registry() {
  static NamedRegistry<LambdaFunction> r(
      "Lambda function", nullptr, "register it with kiln::layers::register_lambda(name, fn)");
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

namespace {

// Keras passes `arguments` as keyword arguments to the function; kiln functions take one tensor,
// and masks and output shapes are computed, not given.
const FieldTable<LambdaOptions>& option_fields() {
  static const FieldTable<LambdaOptions> table{
      {"arguments",
       [](const Config& arguments, LambdaOptions&, std::string_view) {
         KILN_CHECK(arguments.size() == 0, arguments.where(),
                    "Lambda: 'arguments' are not supported; capture them in the registered "
                    "function");
       },
       [](const LambdaOptions&) { return Config::map(); }},
      read_only(null_field<LambdaOptions>("mask")),
      ignored_field<LambdaOptions>("output_shape")};
  return table;
}

// The options with the required function, by its registered name.
struct Arguments : LambdaOptions {
  std::string function;
};

Config function_config(const std::string& name) {
  return Config::map()
      .set("module", "builtins")
      .set("class_name", "function")
      .set("config", name)
      .set("registered_name", "function");
}

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("function", &Arguments::function, function_name_of, function_config))},
      option_fields());
  return table;
}

}  // namespace

Config Lambda::get_config() const {
  KILN_CHECK(!registered_name_.empty(), "Lambda layer '", name(),
             "' wraps an unnamed C++ function, which cannot be serialized; register it with "
             "kiln::layers::register_lambda(name, fn) and build the layer as Lambda(name)");
  return write_fields(Arguments{{}, registered_name_}, fields(), Layer::get_config());
}

LayerPtr Lambda::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Lambda");
  return std::make_shared<Lambda>(a.function, a);
}

}  // namespace kiln::layers
