// Every primitive op, traced and eager, gives the same values and the same gradients; the cases
// together must exercise every op of the table (forward or in a gradient graph).
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#include "kiln/engine/function/function.h"
#include "kiln/framework/autodiff/grad.h"
#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "kiln/framework/ops/rnn_ops.h"
#include "kiln/framework/random/random.h"

namespace kiln {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<Tensor> inputs;
  Fn fn;
  bool differentiable = true;
};

Tensor rand(const Shape& shape, double lo = -1, double hi = 1) {
  static random::Generator gen(42);
  return random::uniform(shape, lo, hi, DType::f32, gen);
}
Tensor ints(std::vector<int64_t> v, const Shape& shape) {
  return from_vector(v, shape);
}

std::vector<Case> cases() {
  using namespace ops;
  const Tensor a = rand({3, 4});
  const Tensor b = rand({3, 4});
  const Tensor pos = rand({3, 4}, 0.5, 2);
  const Tensor row = rand({4});
  const Tensor img = rand({2, 6, 6, 3});
  const Tensor kernel = rand({3, 3, 3, 4});
  auto binary = [&](std::string name, Tensor (*f)(const Tensor&, const Tensor&), Tensor x,
                    Tensor y) {
    return Case{
        std::move(name), {x, y}, [f](const std::vector<Tensor>& v) { return f(v[0], v[1]); }};
  };
  auto compare = [&](std::string name, Tensor (*f)(const Tensor&, const Tensor&)) {
    return Case{std::move(name),
                {a, b},
                [f](const std::vector<Tensor>& v) { return cast(f(v[0], v[1]), DType::f32); },
                false};
  };
  auto logical = [&](std::string name, Tensor (*f)(const Tensor&, const Tensor&)) {
    return Case{std::move(name),
                {a, b},
                [f](const std::vector<Tensor>& v) {
                  return cast(f(greater(v[0], 0.0), greater(v[1], 0.0)), DType::f32);
                },
                false};
  };
  return {
  // Every row of unary_op_rows.h (attributes at their defaults), then attributes away from
  // them.
#define KILN_TRACED_ROW(X, op, F, dtypes, domain, ...)   \
  Case{#op,                                              \
       {positive_inputs(InputDomain::domain) ? pos : a}, \
       [](const auto& v) { return op(v[0]); },           \
       op_def(OpId::op).grad != nullptr},
      KILN_UNARY_OP_ROWS(KILN_TRACED_ROW, KILN_TRACED_ROW, _)
#undef KILN_TRACED_ROW
          Case{"leaky_relu", {a}, [](const auto& v) { return leaky_relu(v[0], 0.2); }},
      Case{"elu", {a}, [](const auto& v) { return elu(v[0], 0.7); }},
      Case{"gelu", {a}, [](const auto& v) { return gelu(v[0], true); }},
      Case{"logical_not",
           {a},
           [](const auto& v) { return cast(logical_not(greater(v[0], 0.0)), DType::f32); },
           false},
      binary("add", add, a, row),
      binary("sub", sub, a, b),
      binary("mul", mul, a, row),
      binary("div", div, a, pos),
      binary("pow", pow, pos, b),
      binary("maximum", maximum, a, b),
      binary("minimum", minimum, a, b),
      compare("equal", equal),
      compare("not_equal", not_equal),
      compare("less", less),
      compare("less_equal", less_equal),
      compare("greater", greater),
      compare("greater_equal", greater_equal),
      logical("logical_and", logical_and),
      logical("logical_or", logical_or),
      Case{"sum", {a}, [](const auto& v) { return sum(v[0], {1}); }},
      Case{"max", {a}, [](const auto& v) { return max(v[0], {0}, true); }},
      Case{"min", {a}, [](const auto& v) { return min(v[0]); }},
      Case{"prod", {pos}, [](const auto& v) { return prod(v[0], {1}); }},
      Case{"mean_softmax", {a}, [](const auto& v) { return mean(softmax(v[0])); }},
      Case{"identity", {a}, [](const auto& v) { return identity(v[0]) * 2.0; }},
      Case{"cast", {a}, [](const auto& v) { return cast(cast(v[0], DType::f64), DType::f32); }},
      Case{"where", {a, b}, [](const auto& v) { return where(greater(v[0], 0.0), v[0], v[1]); }},
      Case{"argmax_argmin",
           {a},
           [](const auto& v) {
             return cast(argmax(v[0]) + sum(argmin(v[0], 0, false)), DType::f32);
           },
           false},
      Case{"matmul", {a, b}, [](const auto& v) { return matmul(v[0], v[1], false, true); }},
      Case{"reshape_transpose",
           {a},
           [](const auto& v) {
             return transpose(reshape(v[0], {4, 3}), {1, 0}) * 3.0;
           }},
      Case{"expand_squeeze",
           {a},
           [](const auto& v) { return squeeze(expand_dims(v[0], 1) * 2.0, {1}); }},
      Case{"broadcast_to",
           {row},
           [](const auto& v) {
             return broadcast_to(v[0], {3, 4}) * 2.0;
           }},
      Case{"broadcast_reshape_like",
           {row, a},
           [](const auto& v) { return reshape_like(broadcast_like(v[0], v[1]), v[1]) * v[1]; }},
      Case{"unflatten_like",
           {a},
           [](const auto& v) {
             return unflatten_like(reshape(v[0], {-1, 1}), v[0], 2) * expand_dims(v[0], 2);
           }},
      Case{"size_of", {a}, [](const auto& v) { return v[0] / size_of(v[0], {0}); }},
      // One process: the all-reduce (start and wait) is the identity, traced or not.
      Case{"all_reduce", {a}, [](const auto& v) { return all_reduce(v[0] * v[0]) * 2.0; }},
      Case{"random_uniform",
           {a},
           [](const auto& v) {
             return v[0] * random_uniform_like(v[0], from_vector<int64_t>({7, 3}, {2}));
           }},
      Case{"strided_slice",
           {a},
           [](const auto& v) {
             return strided_slice(v[0], {2, 0}, {0, 4}, {-1, 2});
           }},
      Case{"concat_pad",
           {a, b},
           [](const auto& v) {
             return pad(concat({v[0], v[1]}, 1), {{1, 0}, {0, 2}}, 0.5);
           }},
      Case{"gather",
           {a},
           [](const auto& v) {
             return gather(v[0], ints({2, 0, 2}, {3}), 0);
           }},
      Case{"scatter_add",
           {a, b},
           [](const auto& v) {
             return scatter_add(v[0], ints({1, 1, 0, 3}, {4}), v[1], 1);
           }},
      Case{"conv2d",
           {img, kernel},
           [](const auto& v) {
             return conv2d(v[0], v[1], {1, 1}, Padding::same);
           }},
      Case{"max_pool2d",
           {img},
           [](const auto& v) {
             return max_pool2d(v[0], {2, 2});
           }},
      Case{"avg_pool2d",
           {img},
           [](const auto& v) {
             return avg_pool2d(v[0], {3, 3}, {2, 2}, Padding::same);
           }},
      Case{"range_like",
           {img},
           [](const auto& v) { return cast(range_like(v[0], 2), DType::f32); },
           false},
      Case{"rnn_sequence",
           {rand({2, 3, 8}), rand({2, 2, 2}), rand({2, 8})},
           [](const auto& v) {
             const Tensor mask = greater(ints({1, 1, 0, 0, 1, 1}, {2, 3}), ints({0}, {1}));
             const Tensor record =
                 rnn_sequence(v[0], v[1], v[2], {.cell = rnn::Cell::lstm, .mask = mask});
             return slice(record, {0, 0, 0}, {-1, -1, 4});
           }},
      // Its three outputs (the node and two tuple_gets) side by side.
      Case{"adam_update",
           {a, b, pos, rand({3, 4}), rand({}, 1e-3, 1e-2)},
           [](const auto& v) {
             const AdamUpdate next = adam_update(v[0], v[1], v[2], v[3], v[4], 0.9, 0.999, 1e-7);
             return stack({next.variable, next.m, next.v});
           },
           false},
  };
}

void expect_equal(const Tensor& traced, const Tensor& eager, const std::string& what) {
  ASSERT_EQ(traced.shape(), eager.shape()) << what;
  ASSERT_EQ(traced.dtype(), eager.dtype()) << what;
  const auto t = traced.to_vector<double>();
  const auto e = eager.to_vector<double>();
  for (size_t i = 0; i < t.size(); ++i)
    EXPECT_NEAR(t[i], e[i], 1e-6 * (1 + std::abs(e[i]))) << what << " element " << i;
}

// Op names of a printed graph: the word between " = " and "(" on each line.
std::set<std::string> ops_in(const std::string& graph_text) {
  std::set<std::string> out;
  std::istringstream lines(graph_text);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find(" = ");
    const size_t paren = line.find('(', eq);
    if (eq != std::string::npos && paren != std::string::npos)
      out.insert(line.substr(eq + 3, paren - eq - 3));
  }
  return out;
}

// Gradients of sum(y * sin(y + 0.5)) for y = f(x): a non-uniform upstream gradient.
std::vector<Tensor> weighted_grads(const Fn& f, const std::vector<Tensor>& xs) {
  return grad(
      [&](const std::vector<Tensor>& v) {
        const Tensor y = f(v);
        return ops::sum(y * ops::sin(y + 0.5));
      },
      xs);
}

TEST(TracedEqualsEager, EveryOpValuesAndGradients) {
  std::set<std::string> seen;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto traced = function([&](const std::vector<Tensor>& v) { return c.fn(v); });
    expect_equal(traced(c.inputs), c.fn(c.inputs), c.name);
    const auto forward = ops_in(traced.graph_text(0, false));
    seen.insert(forward.begin(), forward.end());
    if (!c.differentiable) continue;
    auto traced_grads =
        function([&](const std::vector<Tensor>& v) { return weighted_grads(c.fn, v); });
    const auto got = traced_grads(c.inputs);
    const auto want = weighted_grads(c.fn, c.inputs);
    ASSERT_EQ(got.size(), want.size());
    const std::string what = detail::concat(c.name, " gradient");
    for (size_t i = 0; i < got.size(); ++i) expect_equal(got[i], want[i], what);
    const auto backward = ops_in(traced_grads.graph_text(0, false));
    seen.insert(backward.begin(), backward.end());
  }
  std::vector<std::string> missing;
#define KILN_EXPECT_SEEN(op) \
  if (!seen.count(op_def(OpId::op).name)) missing.push_back(#op);
  KILN_PRIMITIVE_OPS(KILN_EXPECT_SEEN)
#undef KILN_EXPECT_SEEN
  EXPECT_TRUE(missing.empty()) << "ops no case exercised: " << ::testing::PrintToString(missing);
}

// Backward ops that rebuild their forward input's shape read the batch from the plan when the
// trace saw an unknown one (a Conv2D after another layer needs the gradient for its input).
TEST(TracedEqualsEager, InputGradientsWithAnUnknownBatch) {
  using namespace ops;
  const Tensor kernel = rand({3, 3, 3, 4});
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops_on_batch = {
      {"conv2d",
       [&](const Tensor& x) {
         return conv2d(x, kernel, {2, 2}, Padding::valid);
       }},
      {"avg_pool2d",
       [](const Tensor& x) {
         return avg_pool2d(x, {2, 2}, {2, 2}, Padding::same);
       }},
      {"strided_slice", [](const Tensor& x) {
         return strided_slice(x, {0, 1}, {std::numeric_limits<int64_t>::max(), 5}, {1, 2});
       }}};
  for (const auto& entry : ops_on_batch) {
    const std::string& name = entry.first;
    const auto& f = entry.second;  // a name, not a structured binding: lambdas capture it
    SCOPED_TRACE(name);
    const auto fn = [&f](const std::vector<Tensor>& v) {
      return weighted_grads([&f](const std::vector<Tensor>& w) { return f(w[0]); }, v);
    };
    auto traced = function(
        fn,
        {.input_signature = std::vector<TensorSpec>{TensorSpec(Shape{-1, 6, 6, 3}, DType::f32)}});
    for (const int64_t batch : {2, 3}) {
      const std::vector<Tensor> x{rand({batch, 6, 6, 3})};
      expect_equal(traced(x)[0], fn(x)[0], name + " input gradient");
    }
  }
}

}  // namespace
}  // namespace kiln
