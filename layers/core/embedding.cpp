#include "kiln/layers/core/embedding.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"
#include "kiln/layers/unsupported_args.h"

namespace kiln::layers {
namespace {

// Keras resolves "uniform" to RandomUniform; kiln's initializer names spell it out.
std::string initializer_alias(std::string name) {
  return name == "uniform" ? "random_uniform" : name;
}

}  // namespace

Embedding::Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions options)
    : Layer(options.layer_args()),
      input_dim_(input_dim),
      output_dim_(output_dim),
      options_(std::move(options)) {
  KILN_CHECK(input_dim > 0 && output_dim > 0,
             "Embedding: input_dim and output_dim must be positive, got ", input_dim, " and ",
             output_dim);
  options_.embeddings_initializer = initializer_alias(options_.embeddings_initializer);
  autocast_ = false;  // float ids above 2048 would round in float16
}

void Embedding::build(const std::vector<Shape>&) {
  embeddings_ = add_weight("embeddings", {input_dim_, output_dim_},
                           initializers::get(options_.embeddings_initializer), true,
                           options_.embeddings_regularizer);
}

std::vector<Tensor> Embedding::call(const std::vector<Tensor>& inputs, const CallContext&) {
  // Floating ids (a float Input feeding the layer) are cast, as Keras does.
  const Tensor ids = is_floating(inputs[0].dtype()) ? ops::cast(inputs[0], DType::i32) : inputs[0];
  return {ops::gather(read(embeddings_), ids, 0)};
}

std::vector<Tensor> Embedding::compute_mask(const std::vector<Tensor>& inputs,
                                            const std::vector<Tensor>&) {
  if (!options_.mask_zero) return {};
  return {ops::not_equal(inputs[0], zeros({}, inputs[0].dtype()))};
}

Config Embedding::get_config() const {
  return Layer::get_config()
      .set("input_dim", input_dim_)
      .set("output_dim", output_dim_)
      .set("embeddings_initializer", serialize_initializer(options_.embeddings_initializer))
      .set("embeddings_regularizer", serialize_regularizer(options_.embeddings_regularizer))
      .set("activity_regularizer", Config())
      .set("embeddings_constraint", Config())
      .set("mask_zero", options_.mask_zero);
}

LayerPtr Embedding::from_config(const Config& c) {
  check_layer_keys(c,
                   {"input_dim", "output_dim", "embeddings_initializer", "embeddings_regularizer",
                    "activity_regularizer", "embeddings_constraint", "mask_zero", "lora_rank",
                    "lora_alpha", "quantization_config", "input_length"},
                   "Embedding");
  require_null(
      c, {"activity_regularizer", "embeddings_constraint", "lora_rank", "quantization_config"},
      "Embedding");
  EmbeddingOptions o;
  const Config* init = c.find("embeddings_initializer");
  if (init != nullptr && init->is_string())
    o.embeddings_initializer = initializer_alias(init->as_string());
  else
    o.embeddings_initializer =
        initializer_name(c, "embeddings_initializer", o.embeddings_initializer);
  o.embeddings_regularizer = regularizer_of(c, "embeddings_regularizer");
  o.mask_zero = c.get_bool("mask_zero", o.mask_zero);
  read_layer_args(c, o);
  return std::make_shared<Embedding>(c["input_dim"].as_int(), c["output_dim"].as_int(),
                                     std::move(o));
}

}  // namespace kiln::layers
