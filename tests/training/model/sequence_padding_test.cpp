// Padding invariance of the sequence layers (recurrent, Bidirectional, TimeDistributed, the
// attention of a Transformer encoder block): a sequence padded to any longer length, before or
// after, with its mask, gives the unpadded outputs and gradients, eagerly and traced, and an
// unknown length traces once.
#include <gtest/gtest.h>

#include <functional>

#include "apps/examples/transformer_encoder.h"
#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/random/random.h"
#include "kiln/layers/core/dense.h"
#include "kiln/layers/core/embedding.h"
#include "kiln/layers/core/input_layer.h"
#include "kiln/layers/pooling/global_pooling.h"
#include "kiln/layers/recurrent/bidirectional.h"
#include "kiln/layers/recurrent/recurrent_layers.h"
#include "kiln/layers/recurrent/time_distributed.h"
#include "kiln/training/model/model.h"
#include "kiln/training/model/trainer.h"
#include "tests/training/model/padded_sequences.h"

namespace kiln {
namespace {

using namespace layers;

using testing::expect_near_all;
using testing::padded;

using SequenceBody = std::function<KerasTensor(const KerasTensor&)>;

struct ModelCase {
  std::string name;
  SequenceBody body;  // between Embedding and Dense
};

// The layers applied one after another.
SequenceBody chain(std::vector<LayerRef> layers) {
  return [layers](const KerasTensor& x) {
    KerasTensor y = x;
    for (const LayerRef& l : layers) y = (*l.get())(y);
    return y;
  };
}

std::vector<ModelCase> model_cases() {
  return {
      {"SimpleRNN", chain({SimpleRNN(5)})},
      {"GRU", chain({GRU(5)})},
      {"LSTM", chain({LSTM(5)})},
      {"LSTM_go_backwards", chain({LSTM(5, {.go_backwards = true})})},
      {"GRU_sequences_max_pooled",
       chain({GRU(4, {.return_sequences = true}), GlobalMaxPooling1D()})},
      {"stacked_LSTMs", chain({LSTM(4, {.return_sequences = true}), LSTM(3)})},
      {"Bidirectional_GRU", chain({Bidirectional(GRU(4))})},
      {"Bidirectional_LSTM_sequences_averaged",
       chain({Bidirectional(LSTM(3, {.return_sequences = true})), GlobalAveragePooling1D()})},
      {"TimeDistributed_Dense_then_LSTM",
       chain({TimeDistributed(Dense(6, {.activation = "relu"})), LSTM(3)})},
      {"Transformer_encoder_averaged",
       [](const KerasTensor& x) {
         return GlobalAveragePooling1D()(
             examples::transformer_encoder(x, {.num_heads = 2, .key_dim = 3, .ff_dim = 8}));
       }},
      {"causal_Transformer_encoder_max_pooled",
       [](const KerasTensor& x) {
         return GlobalMaxPooling1D()(examples::transformer_encoder(
             x, {.num_heads = 2, .key_dim = 3, .ff_dim = 8, .use_causal_mask = true}));
       }},
  };
}

Model build(const ModelCase& c) {
  random::set_seed(17);
  layers::reset_names();
  const KerasTensor ids = Input({-1}, DType::i32);
  const KerasTensor embedded = Embedding(20, 4, {.mask_zero = true})(ids);
  return Model(ids, Dense(3)(c.body(embedded)));
}

// Gradients of a weighted sum of the outputs with respect to every trainable weight.
std::vector<Tensor> weight_grads(Model& model, const Tensor& ids) {
  const Tensor w = from_vector(std::vector<float>{0.5F, -1.0F, 2.0F}, Shape({1, 3}));
  return value_and_grad([&] { return ops::sum(model(ids, false) * w); }, model.trainable_weights())
      .second;
}

TEST(SequencePadding, OutputsAndGradientsDoNotDependOnPadding) {
  const std::vector<int32_t> ids{3, 5, 7, 2};
  for (const ModelCase& c : model_cases()) {
    SCOPED_TRACE(c.name);
    Model model = build(c);
    const Tensor exact = padded(ids, 4, false);
    const Tensor want = model(exact, false);
    const std::vector<Tensor> want_grads = weight_grads(model, exact);
    auto traced_grads =
        function([&](const std::vector<Tensor>& in) { return weight_grads(model, in[0]); },
                 {.input_signature = std::vector<TensorSpec>{TensorSpec({1, -1}, DType::i32)}});
    for (const bool pre : {false, true}) {
      for (const int64_t width : {5, 9}) {
        const std::string what =
            c.name + (pre ? " pre-padded to " : " post-padded to ") + std::to_string(width);
        const Tensor x = padded(ids, width, pre);
        expect_near_all(model(x, false), want, what + " (eager)");
        expect_near_all(model.predict(x, {.verbose = 0}), want, what + " (traced)");
        const std::vector<Tensor> eager = weight_grads(model, x);
        const std::vector<Tensor> traced = traced_grads({x});
        ASSERT_EQ(eager.size(), want_grads.size());
        for (size_t i = 0; i < eager.size(); ++i) {
          expect_near_all(eager[i], want_grads[i], what + " gradient " + std::to_string(i));
          expect_near_all(traced[i], want_grads[i], what + " traced gradient " + std::to_string(i));
        }
      }
    }
    // Input({-1}) leaves the length unknown: every width runs under one trace.
    EXPECT_EQ(model.trainer().predict_stats().traces, 1);
    EXPECT_EQ(traced_grads.num_traces(), 1u);
  }
}

}  // namespace
}  // namespace kiln
