#include "kiln/layers/preprocessing/category_encoding.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {

void check_output_mode(const std::string& output_mode, bool int_allowed, const std::string& layer) {
  KILN_CHECK((int_allowed && output_mode == "int") || output_mode == "one_hot" ||
                 output_mode == "multi_hot" || output_mode == "count",
             layer, ": unknown output_mode '", output_mode, "' (", int_allowed ? "int, " : "",
             "one_hot, multi_hot or count)");
}

Tensor encode_categories(const Tensor& tokens, int64_t depth, const std::string& output_mode,
                         DType dtype, const std::string& layer) {
  if (output_mode == "int") return ops::cast(tokens, DType::i64);
  Tensor t = ops::cast(tokens, DType::i64);
  if (t.rank() == 0) t = ops::expand_dims(t, -1);
  if (output_mode == "one_hot") {
    if (t.rank() > 1 && t.dim(-1) == 1) t = ops::squeeze(t, {-1});
    return ops::one_hot(t, depth, dtype);
  }
  KILN_SHAPE_CHECK(t.rank() <= 2, layer, ": output_mode '", output_mode,
                   "' encodes tokens [batch] or [batch, tokens], got ", tokens.shape());
  const Tensor counts = ops::sum(ops::one_hot(t, depth, dtype), {-2});
  return output_mode == "count" ? counts : ops::minimum(counts, 1.0);
}

Shape encoded_shape(const Shape& tokens, int64_t depth, const std::string& output_mode) {
  if (output_mode == "int") return tokens;
  std::vector<int64_t> dims = tokens.dims();
  if (dims.empty()) dims.push_back(1);  // a scalar is one token, as encode_categories takes it
  if (output_mode != "one_hot")
    dims.pop_back();
  else if (dims.size() > 1 && dims.back() == 1)
    dims.pop_back();
  dims.push_back(depth);
  return Shape(std::move(dims));
}

CategoryEncoding::CategoryEncoding(int64_t num_tokens, CategoryEncodingOptions options)
    : Layer(options.layer_args()), num_tokens_(num_tokens), options_(std::move(options)) {
  KILN_CHECK(num_tokens_ > 0, "CategoryEncoding: num_tokens must be positive, got ", num_tokens_);
  check_output_mode(options_.output_mode, false, "CategoryEncoding");
}

std::vector<Tensor> CategoryEncoding::call(const std::vector<Tensor>& inputs, const CallContext&) {
  return {encode_categories(inputs[0], num_tokens_, options_.output_mode, dtype_policy().compute,
                            "CategoryEncoding '" + name() + "'")};
}

namespace {

using Options = CategoryEncodingOptions;

struct Arguments : Options {
  int64_t num_tokens = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table = with_options<Arguments>(
      {required(field("num_tokens", &Arguments::num_tokens))},
      FieldTable<Options>{
          field("output_mode", &Options::output_mode),
          read_only(fixed_field<Options>("sparse", Config(false), "kiln's tensors are dense"))});
  return table;
}

}  // namespace

Config CategoryEncoding::get_config() const {
  return write_fields(Arguments{options_, num_tokens_}, fields(), Layer::get_config());
}

LayerPtr CategoryEncoding::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "CategoryEncoding");
  return std::make_shared<CategoryEncoding>(a.num_tokens, a);
}

}  // namespace kiln::layers
