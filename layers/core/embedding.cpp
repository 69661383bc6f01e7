#include "kiln/layers/core/embedding.h"

#include "kiln/framework/core/error.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/layer_config.h"

namespace kiln::layers {
Embedding::Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions options)
    : Layer(options.layer_args()),
      input_dim_(input_dim),
      output_dim_(output_dim),
      options_(std::move(options)) {
  KILN_CHECK(input_dim > 0 && output_dim > 0,
             "Embedding: input_dim and output_dim must be positive, got ", input_dim, " and ",
             output_dim);
  autocast_ = false;  // float ids above 2048 would round in float16
}

void Embedding::build(const std::vector<Shape>&) {
  embeddings_ =
      add_weight("embeddings", {input_dim_, output_dim_}, options_.embeddings_initializer.get(),
                 true, options_.embeddings_regularizer, options_.embeddings_constraint);
}

std::vector<Tensor> Embedding::call(const std::vector<Tensor>& inputs, const CallContext&) {
  // Floating ids (a float Input feeding the layer) are cast, as Keras does.
  const Tensor ids = is_floating(inputs[0].dtype()) ? ops::cast(inputs[0], DType::i32) : inputs[0];
  return {ops::gather(read(embeddings_), ids, 0)};
}

std::vector<Tensor> Embedding::compute_mask(const std::vector<Tensor>& inputs,
                                            const std::vector<Tensor>&) {
  if (!options_.mask_zero) return {};
  return {ops::not_equal(inputs[0], zeros({}, inputs[0].dtype(), inputs[0].device()))};
}

namespace {

using Options = EmbeddingOptions;

const FieldTable<Options>& option_fields() {
  static const FieldTable<Options> table{
      initializer_field("embeddings_initializer", &Options::embeddings_initializer),
      regularizer_field("embeddings_regularizer", &Options::embeddings_regularizer),
      activity_regularizer_field<Options>(),
      constraint_field("embeddings_constraint", &Options::embeddings_constraint),
      field("mask_zero", &Options::mask_zero),
      read_only(null_field<Options>("lora_rank")),
      null_field<Options>("quantization_config"),
      ignored_field<Options>("lora_alpha"),
      ignored_field<Options>("input_length")};  // Keras 2's, implied by the inputs
  return table;
}

// The options with the required arguments.
struct Arguments : Options {
  int64_t input_dim = 0;
  int64_t output_dim = 0;
};

const FieldTable<Arguments>& fields() {
  static const FieldTable<Arguments> table =
      with_options<Arguments>({required(field("input_dim", &Arguments::input_dim)),
                               required(field("output_dim", &Arguments::output_dim))},
                              option_fields());
  return table;
}

}  // namespace

Config Embedding::get_config() const {
  return write_fields(Arguments{options_, input_dim_, output_dim_}, fields(), Layer::get_config());
}

LayerPtr Embedding::from_config(const Config& c) {
  const Arguments a = read_layer_fields(c, fields(), "Embedding");
  return std::make_shared<Embedding>(a.input_dim, a.output_dim, a);
}

}  // namespace kiln::layers
