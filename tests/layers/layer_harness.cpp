#include "tests/layers/layer_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/layers/registry.h"

namespace kiln::layers::testing {
namespace {

Shape with_batch(const Shape& sample, int64_t batch) {
  std::vector<int64_t> dims{batch};
  for (const int64_t d : sample) dims.push_back(d);
  return Shape(std::move(dims));
}

// Smooth, distinct values (ties would make max pooling's gradient depend on the order of equal
// elements): sin at irrational steps.
Tensor pattern(const Shape& shape, double phase, DType dtype = DType::f32) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape.numel(); ++i)
    v.push_back(std::sin(1.37 * static_cast<double>(i) + phase));
  return from_vector(v, shape, dtype);
}

Tensor input_for(const InputSpec& spec, int64_t batch, double phase) {
  const Shape shape = with_batch(spec.sample_shape, batch);
  if (is_floating(spec.dtype)) return pattern(shape, phase, spec.dtype);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < shape.numel(); ++i)
    ids.push_back((i * 7 + static_cast<int64_t>(phase * 10)) % spec.id_range);
  return from_vector(ids, shape, spec.dtype);
}

std::vector<TensorMeta> unknown_batch_metas(const LayerCase& c) {
  std::vector<TensorMeta> out;
  for (const InputSpec& s : c.inputs)
    out.push_back({s.dtype, with_batch(s.sample_shape, Shape::kUnknownDim), Device::cpu()});
  return out;
}

LayerPtr built(const LayerCase& c) {
  LayerPtr layer = c.make();
  (*layer)(case_inputs(c, 2));
  return layer;
}

std::vector<Tensor> snapshot(const std::vector<Variable>& weights) {
  std::vector<Tensor> out;
  for (const Variable& v : weights) out.push_back(v.value().clone());
  return out;
}

void restore(const std::vector<Variable>& weights, const std::vector<Tensor>& values) {
  for (size_t i = 0; i < weights.size(); ++i) weights[i].assign(values[i]);
}

// The scalar a training step minimizes: each output against a fixed pattern, so that no
// gradient vanishes by symmetry (sum(y) has a zero gradient through a normalization).
Tensor weighted_sum(const std::vector<Tensor>& outputs) {
  Tensor loss;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& y = outputs[i];
    std::vector<int64_t> sample;
    for (int d = 1; d < y.rank(); ++d) sample.push_back(y.dim(d));
    // Broadcast over the batch, so the same weights serve any batch size.
    const Tensor w = pattern(Shape(std::move(sample)), 0.5 + static_cast<double>(i), y.dtype());
    const Tensor term = ops::sum(y * w);
    loss = loss.defined() ? loss + term : term;
  }
  return loss;
}

bool all_finite(const Tensor& t) {
  for (const double v : ops::cast(t, DType::f64).to_vector<double>())
    if (!std::isfinite(v)) return false;
  return true;
}

bool any_nonzero(const Tensor& t) {
  for (const double v : ops::cast(t, DType::f64).to_vector<double>())
    if (v != 0) return true;
  return false;
}

}  // namespace

std::vector<Tensor> case_inputs(const LayerCase& c, int64_t batch, int salt) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    out.push_back(input_for(c.inputs[i], batch, 0.3 + 0.9 * static_cast<double>(i) + salt));
  return out;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = ops::cast(got, DType::f64).to_vector<double>();
  const std::vector<double> w = ops::cast(want, DType::f64).to_vector<double>();
  double squares = 0;
  for (const double v : w) squares += v * v;
  const double rms = w.empty() ? 0 : std::sqrt(squares / static_cast<double>(w.size()));
  int reported = 0;
  for (size_t i = 0; i < w.size() && reported < 5; ++i) {
    if (std::abs(g[i] - w[i]) <= tol * (std::abs(w[i]) + rms)) continue;
    ADD_FAILURE() << what << " element " << i << ": got " << g[i] << ", want " << w[i] << " (shape "
                  << want.shape() << ")";
    ++reported;
  }
}

void check_output_spec(const LayerCase& c) {
  LayerPtr layer = c.make();
  const std::vector<Tensor> eager = (*layer)(case_inputs(c, 2));
  // A fresh layer builds from the symbolic shapes alone, as in a functional model.
  LayerPtr fresh = c.make();
  const std::vector<TensorMeta> spec = fresh->compute_output_spec(unknown_batch_metas(c));
  ASSERT_EQ(spec.size(), eager.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    std::vector<int64_t> dims = eager[i].shape().dims();
    ASSERT_FALSE(dims.empty()) << "output " << i << " has no batch dim";
    EXPECT_EQ(dims[0], 2) << "output " << i << " batch";
    dims[0] = Shape::kUnknownDim;
    EXPECT_EQ(spec[i].shape, Shape(dims)) << "output " << i;
    EXPECT_EQ(spec[i].dtype, eager[i].dtype()) << "output " << i;
    EXPECT_EQ(eager[i].dtype(), layer->dtype_policy().compute) << "output " << i;
  }
  // The shape-only form agrees too (it feeds floating inputs in the compute dtype).
  std::vector<Shape> shapes;
  for (const TensorMeta& m : unknown_batch_metas(c)) shapes.push_back(m.shape);
  const std::vector<Shape> out_shapes = c.make()->compute_output_shape(shapes);
  ASSERT_EQ(out_shapes.size(), spec.size());
  for (size_t i = 0; i < spec.size(); ++i) EXPECT_EQ(out_shapes[i], spec[i].shape);
}

void check_weights(const LayerCase& c) {
  LayerPtr layer = built(c);
  EXPECT_EQ(layer->weights().size(), c.trainable_weights + c.non_trainable_weights);
  EXPECT_EQ(layer->trainable_weights().size(), c.trainable_weights);
  EXPECT_EQ(layer->non_trainable_weights().size(), c.non_trainable_weights);
  // Each weight is named after the layer that made it: this one or a wrapped one.
  std::vector<std::string> owners{layer->name()};
  for (const LayerPtr& inner : layer->sublayers()) owners.push_back(inner->name());
  int64_t params = 0;
  for (const Variable& v : layer->weights()) {
    EXPECT_TRUE(std::any_of(owners.begin(), owners.end(), [&](const std::string& owner) {
      return v.name().rfind(owner + "/", 0) == 0;
    })) << v.name();
    // Floating weights in the variable dtype; counters (Normalization's count) keep their own.
    if (is_floating(v.dtype())) {
      EXPECT_EQ(v.dtype(), layer->dtype_policy().variable) << v.name();
    }
    params += v.shape().numel();
  }
  EXPECT_EQ(layer->count_params(), params);
  // A frozen layer has no trainable weights.
  layer->set_trainable(false);
  EXPECT_TRUE(layer->trainable_weights().empty());
  EXPECT_EQ(layer->non_trainable_weights().size(), layer->weights().size());
}

void check_config_round_trip(const LayerCase& c) {
  LayerPtr layer = built(c);
  const Config config = serialize_layer(*layer);
  // Through JSON, as a model config in a checkpoint travels.
  const LayerPtr rebuilt = deserialize_layer(Config::from_json(config.to_json()));
  EXPECT_EQ(rebuilt->class_name(), layer->class_name());
  EXPECT_EQ(rebuilt->name(), layer->name());
  const Config again = serialize_layer(*rebuilt);
  EXPECT_TRUE(again == config) << "before: " << config.to_json() << "\nafter:  " << again.to_json();

  const std::vector<Tensor> inputs = case_inputs(c, 3, 1);
  (*rebuilt)(inputs);
  const std::vector<Variable> from = layer->weights();
  const std::vector<Variable> to = rebuilt->weights();
  ASSERT_EQ(to.size(), from.size());
  for (size_t i = 0; i < from.size(); ++i) {
    ASSERT_EQ(to[i].shape(), from[i].shape()) << to[i].name();
    to[i].assign(from[i].value());
  }
  const std::vector<Tensor> want = (*layer)(inputs);
  const std::vector<Tensor> got = (*rebuilt)(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) expect_close(got[i], want[i], 0, "rebuilt output");
}

void check_training_step(const LayerCase& c) {
  LayerPtr layer = built(c);
  const std::vector<Tensor> inputs = case_inputs(c, 4);
  // The float inputs as variables too, so one value_and_grad gives their gradients as well.
  std::vector<Variable> wrt = layer->trainable_weights();
  const size_t num_weights = wrt.size();
  std::vector<size_t> input_slot(inputs.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!is_floating(inputs[i].dtype())) continue;
    input_slot[i] = wrt.size();
    wrt.emplace_back(inputs[i], "input" + std::to_string(i));
  }
  const auto loss = [&] {
    std::vector<Tensor> in = inputs;
    for (size_t i = 0; i < in.size(); ++i)
      if (is_floating(in[i].dtype())) in[i] = wrt[input_slot[i]].value();
    return weighted_sum((*layer)(in, CallContext{.training = true}));
  };
  const auto [before, grads] = value_and_grad(loss, wrt);
  ASSERT_EQ(grads.size(), wrt.size());
  for (size_t i = 0; i < wrt.size(); ++i) {
    SCOPED_TRACE(wrt[i].name());
    ASSERT_TRUE(grads[i].defined());
    EXPECT_EQ(grads[i].shape(), wrt[i].shape());
    EXPECT_TRUE(all_finite(grads[i]));
    EXPECT_TRUE(any_nonzero(grads[i]));
  }
  if (num_weights == 0 || c.random_in_training) return;
  // A small step down the gradient lowers the loss: it decreases by about lr * |g|^2 = 1e-3.
  double norm2 = 0;
  for (size_t i = 0; i < num_weights; ++i)
    norm2 += ops::sum(ops::square(ops::cast(grads[i], DType::f64))).item<double>();
  const double lr = 1e-3 / std::max(norm2, 1e-3);
  for (size_t i = 0; i < num_weights; ++i) wrt[i].assign_sub(grads[i] * lr);
  EXPECT_LT(loss().item<double>(), before.item<double>());
}

void check_traced_equals_eager(const LayerCase& c) {
  LayerPtr layer = built(c);
  const std::vector<Variable> weights = layer->weights();
  const std::vector<Variable> trainable = layer->trainable_weights();
  const std::vector<Variable> non_trainable = layer->non_trainable_weights();
  const std::vector<Tensor> initial = snapshot(weights);
  std::vector<TensorSpec> signature;
  for (const TensorMeta& m : unknown_batch_metas(c)) signature.emplace_back(m.shape, m.dtype);

  for (const bool training : {false, true}) {
    if (training && c.random_in_training) continue;
    SCOPED_TRACE(training ? "training" : "inference");
    // The outputs, the gradients of a loss with respect to the trainable weights, and the
    // non-trainable weights after the call (BatchNormalization's moving statistics).
    const auto step = [&](const std::vector<Tensor>& xs) {
      std::vector<Tensor> outputs;
      const auto loss = [&] {
        outputs = (*layer)(xs, CallContext{.training = training});
        Tensor total;
        for (const Tensor& y : outputs) {
          // Against a target of 0.25, not 0: BatchNormalization's output sums to zero over the
          // batch, so with 0 its beta gradient would be rounding noise on both sides.
          const Tensor error = is_floating(y.dtype()) ? y - 0.25 : y;
          const Tensor term = ops::sum(ops::square(error)) * 0.5;
          total = total.defined() ? total + term : term;
        }
        return total;
      };
      std::vector<Tensor> result;
      if (trainable.empty()) {
        loss();
      } else {
        result = value_and_grad(loss, trainable).second;
      }
      result.insert(result.begin(), outputs.begin(), outputs.end());
      for (const Variable& v : non_trainable) result.push_back(v.value());
      return result;
    };
    auto traced = kiln::function(step, {.name = c.label, .input_signature = signature});
    for (const int64_t batch : {3, 5}) {
      SCOPED_TRACE("batch " + std::to_string(batch));
      const std::vector<Tensor> inputs = case_inputs(c, batch);
      restore(weights, initial);
      std::vector<Tensor> want;
      for (const Tensor& t : step(inputs)) want.push_back(t.clone());
      restore(weights, initial);
      const std::vector<Tensor> got = traced(inputs);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        expect_close(got[i], want[i], 1e-5, "result " + std::to_string(i));
    }
    EXPECT_EQ(traced.stats().traces, 1);
  }
}

}  // namespace kiln::layers::testing
