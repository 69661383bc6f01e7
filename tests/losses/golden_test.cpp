// Every loss class against Keras (values and gradients with respect to y_pred, in float64 and
// float32) over argument combinations, reductions, sample weights and masks; and the loss
// functions against keras.losses' functions.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/core/config.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/losses/functional.h"
#include "tests/losses/golden_cases.h"

namespace kiln::losses::testing {
namespace {

// Keras and kiln sum in different orders, and Keras keeps a few constants in float32 even when
// computing in float64 (log_cosh's log(2)), which shows at 1e-9.
double tolerance(DType dtype) {
  return dtype == DType::f64 ? 1e-8 : 1e-5;
}

class LossGoldens : public ::testing::TestWithParam<LossGolden> {};

TEST_P(LossGoldens, MatchKerasValuesAndGradients) {
  const LossGolden& g = GetParam();
  const LossPtr loss = golden_loss(g);
  for (const DType dtype : {DType::f64, DType::f32}) {
    SCOPED_TRACE(dtype_name(dtype));
    const GoldenInputs in = golden_inputs(g, dtype);
    const Tensor upstream = from_vector(g.upstream, Shape(g.loss_shape), dtype);
    Tensor value;
    const auto grads = grad(
        [&](const std::vector<Tensor>& v) {
          value = (*loss)(in.y_true, v[0], in.sample_weight, in.mask);
          return ops::sum(value * upstream);
        },
        {in.y_pred});
    const GoldenResult& want = dtype == DType::f64 ? g.f64 : g.f32;
    EXPECT_EQ(value.shape(), Shape(g.loss_shape));
    EXPECT_EQ(value.dtype(), dtype);
    expect_close(value, want.loss, tolerance(dtype), "loss");
    expect_close(grads[0], want.grad, tolerance(dtype), "gradient");
  }
}

INSTANTIATE_TEST_SUITE_P(Keras, LossGoldens, ::testing::ValuesIn(loss_goldens()), golden_test_name);

using Function = std::function<Tensor(const Tensor&, const Tensor&, const Config&)>;

// The kiln function for each keras.losses function, reading Keras's keyword arguments.
const std::map<std::string, Function>& functions() {
  static const std::map<std::string, Function> table{
      {"mean_squared_error",
       [](const Tensor& t, const Tensor& p, const Config&) { return mean_squared_error(t, p); }},
      {"mean_absolute_error",
       [](const Tensor& t, const Tensor& p, const Config&) { return mean_absolute_error(t, p); }},
      {"mean_absolute_percentage_error",
       [](const Tensor& t, const Tensor& p, const Config&) {
         return mean_absolute_percentage_error(t, p);
       }},
      {"huber", [](const Tensor& t, const Tensor& p,
                   const Config& c) { return huber(t, p, c.get_double("delta", 1.0)); }},
      {"log_cosh", [](const Tensor& t, const Tensor& p, const Config&) { return log_cosh(t, p); }},
      {"cosine_similarity",
       [](const Tensor& t, const Tensor& p, const Config& c) {
         return cosine_similarity(t, p, c.get_int("axis", -1));
       }},
      {"binary_crossentropy",
       [](const Tensor& t, const Tensor& p, const Config& c) {
         return binary_crossentropy(t, p, c.get_bool("from_logits", false),
                                    c.get_double("label_smoothing", 0), c.get_int("axis", -1));
       }},
      {"categorical_crossentropy",
       [](const Tensor& t, const Tensor& p, const Config& c) {
         return categorical_crossentropy(t, p, c.get_bool("from_logits", false),
                                         c.get_double("label_smoothing", 0), c.get_int("axis", -1));
       }},
      {"sparse_categorical_crossentropy",
       [](const Tensor& t, const Tensor& p, const Config& c) {
         std::optional<int64_t> ignore_class;
         if (c.contains("ignore_class")) ignore_class = c["ignore_class"].as_int();
         return sparse_categorical_crossentropy(t, p, c.get_bool("from_logits", false),
                                                ignore_class);
       }},
      {"kl_divergence",
       [](const Tensor& t, const Tensor& p, const Config&) { return kl_divergence(t, p); }},
      {"hinge", [](const Tensor& t, const Tensor& p, const Config&) { return hinge(t, p); }},
  };
  return table;
}

TEST(LossFunctions, MatchKeras) {
  ASSERT_EQ(function_goldens().size(), functions().size());
  for (const FunctionGolden& g : function_goldens()) {
    const Tensor y_true = golden_labels(g.label_dtype, g.y_true, g.true_shape, DType::f64);
    const Tensor y_pred = from_vector(g.y_pred, Shape(g.pred_shape), DType::f64);
    const Tensor value = functions().at(g.name)(y_true, y_pred, Config::from_json(g.kwargs));
    EXPECT_EQ(value.shape(), Shape(g.loss_shape)) << g.name;
    expect_close(value, g.loss, tolerance(DType::f64), g.name);
  }
}

}  // namespace
}  // namespace kiln::losses::testing
