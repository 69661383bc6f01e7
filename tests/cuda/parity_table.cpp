#include "tests/cuda/parity_table.h"

#include <sstream>
#include <tuple>
#include <utility>

#include "kiln/framework/ops/op_def.h"
#include "kiln/framework/ops/ops.h"
#include "kiln/framework/ops/optimizer_ops.h"
#include "tests/cuda/device_compare.h"

namespace kiln::testing {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

const std::vector<DType> kFloating{DType::f32, DType::f64, DType::f16, DType::bf16};
const std::vector<DType> kNumeric{DType::f32, DType::f64, DType::f16, DType::bf16,
                                  DType::i32, DType::i64, DType::u8};
const std::vector<DType> kAll{DType::f32, DType::f64, DType::f16, DType::bf16,
                              DType::i32, DType::i64, DType::u8,  DType::boolean};

// Gradients are compared in float32 and float64, where the tolerance is meaningful, for ops
// with a gradient and a floating result (not a cast to an integer).
bool compares_gradients(OpId op, DType dtype, const Tensor& out) {
  return op_def(op).grad != nullptr && (dtype == DType::f32 || dtype == DType::f64) &&
         is_floating(out.dtype());
}

std::string label(OpId op, DType dtype, const std::vector<Tensor>& inputs) {
  std::ostringstream out;
  out << op_def(op).name << ' ' << dtype_name(dtype);
  for (const Tensor& t : inputs) out << ' ' << t.shape();
  return out.str();
}

void add(std::vector<ParityCase>& cases, OpId op, DType dtype, std::vector<Tensor> inputs, Fn fn) {
  const bool gradients = compares_gradients(op, dtype, fn(inputs));
  std::string name = label(op, dtype, inputs);
  cases.push_back({op, std::move(name), std::move(inputs), std::move(fn), gradients});
}

struct Unary {
  OpId op;
  Fn fn;
  const std::vector<DType>* dtypes;
  bool positive;  // domain
};

void unary_cases(std::vector<ParityCase>& cases) {
  const auto one = [](Tensor (*f)(const Tensor&)) {
    return [f](const std::vector<Tensor>& x) { return f(x[0]); };
  };
  const std::vector<Unary> ops{
      {OpId::neg, one(ops::neg), &kNumeric, false},
      {OpId::abs, one(ops::abs), &kNumeric, false},
      {OpId::sign, one(ops::sign), &kNumeric, false},
      {OpId::exp, one(ops::exp), &kFloating, false},
      {OpId::log, one(ops::log), &kFloating, true},
      {OpId::log1p, one(ops::log1p), &kFloating, true},
      {OpId::sqrt, one(ops::sqrt), &kFloating, true},
      {OpId::rsqrt, one(ops::rsqrt), &kFloating, true},
      {OpId::square, one(ops::square), &kNumeric, false},
      {OpId::tanh, one(ops::tanh), &kFloating, false},
      {OpId::sigmoid, one(ops::sigmoid), &kFloating, false},
      {OpId::relu, one(ops::relu), &kNumeric, false},
      {OpId::leaky_relu, [](const auto& x) { return ops::leaky_relu(x[0], 0.2); }, &kFloating,
       false},
      {OpId::elu, [](const auto& x) { return ops::elu(x[0], 0.7); }, &kFloating, false},
      {OpId::gelu, [](const auto& x) { return ops::gelu(x[0], false); }, &kFloating, false},
      {OpId::gelu, [](const auto& x) { return ops::gelu(x[0], true); }, &kFloating, false},
      {OpId::softplus, one(ops::softplus), &kFloating, false},
      {OpId::sin, one(ops::sin), &kFloating, false},
      {OpId::cos, one(ops::cos), &kFloating, false},
      {OpId::erf, one(ops::erf), &kFloating, false},
  };
  for (const Unary& u : ops)
    for (const DType dtype : *u.dtypes)
      add(cases, u.op, dtype, {values({4, 33}, dtype, u.positive || dtype == DType::u8)}, u.fn);
  add(cases, OpId::logical_not, DType::boolean, {values({7}, DType::boolean, false)},
      one(ops::logical_not));
}

void binary_cases(std::vector<ParityCase>& cases) {
  const auto two = [](Tensor (*f)(const Tensor&, const Tensor&)) {
    return [f](const std::vector<Tensor>& x) { return f(x[0], x[1]); };
  };
  const std::vector<DType> kBool{DType::boolean};
  const std::vector<std::tuple<OpId, Fn, const std::vector<DType>*>> ops{
      {OpId::add, two(ops::add), &kNumeric},
      {OpId::sub, two(ops::sub), &kNumeric},
      {OpId::mul, two(ops::mul), &kNumeric},
      {OpId::div, two(ops::div), &kNumeric},
      {OpId::pow, two(ops::pow), &kNumeric},
      {OpId::maximum, two(ops::maximum), &kNumeric},
      {OpId::minimum, two(ops::minimum), &kNumeric},
      {OpId::equal, two(ops::equal), &kAll},
      {OpId::not_equal, two(ops::not_equal), &kAll},
      {OpId::less, two(ops::less), &kAll},
      {OpId::less_equal, two(ops::less_equal), &kAll},
      {OpId::greater, two(ops::greater), &kAll},
      {OpId::greater_equal, two(ops::greater_equal), &kAll},
      {OpId::logical_and, two(ops::logical_and), &kBool},
      {OpId::logical_or, two(ops::logical_or), &kBool},
  };
  // Same shapes, a row, a scalar, and both operands broadcasting.
  const std::vector<std::pair<Shape, Shape>> shapes{{{2, 3, 4}, {2, 3, 4}},
                                                    {{2, 3, 4}, {4}},
                                                    {{}, {2, 3}},
                                                    {{2, 1, 4}, {3, 1}},
                                                    {{5, 1}, {1, 6}}};
  for (const auto& [op, fn, dtypes] : ops)
    for (const DType dtype : *dtypes)
      for (const auto& [a, b] : shapes)
        // Positive operands keep div and pow finite (and integer division away from zero).
        add(cases, op, dtype, {values(a, dtype, true), values(b, dtype, true)}, fn);
}

void other_cases(std::vector<ParityCase>& cases) {
  for (const DType dtype : kAll)
    add(cases, OpId::where, dtype,
        {values({2, 1, 4}, DType::boolean, false), values({3, 1}, dtype, true),
         values({}, dtype, false)},
        [](const auto& x) { return ops::where(x[0], x[1], x[2]); });
  // Non-negative values within every dtype's range: other casts are undefined in C++.
  const std::vector<double> v{0, 1, 2.5, 3.75, 17, 100, 0.125, 64};
  for (const DType from : kAll)
    for (const DType to : kAll)
      add(cases, OpId::cast, from, {from_vector(v, {2, 4}, from)},
          [to](const auto& x) { return ops::cast(x[0], to); });
  const std::vector<std::vector<int64_t>> axes_cases{{}, {0}, {1}, {2}, {0, 2}, {1, 2}};
  for (const DType dtype : kNumeric)
    for (const std::vector<int64_t>& axes : axes_cases)
      for (const bool keepdims : {false, true})
        add(cases, OpId::reduce_sum, dtype, {values({3, 4, 5}, dtype, dtype == DType::u8)},
            [axes, keepdims](const auto& x) { return ops::sum(x[0], axes, keepdims); });
  // Rows longer than a block's threads.
  add(cases, OpId::reduce_sum, DType::f32, {values({3, 1000}, DType::f32, false)},
      [](const auto& x) { return ops::sum(x[0], {1}); });
  // One case per output of the Adam update (variable, m, v), over positive second moments.
  for (const DType dtype : {DType::f32, DType::f64})
    for (const int output : {0, 1, 2})
      add(cases, OpId::adam_update, dtype,
          {values({5, 67}, dtype, false), values({5, 67}, dtype, false),
           values({5, 67}, dtype, true), values({5, 67}, dtype, false),
           from_vector(std::vector<double>{1e-3}, {1}, dtype)},
          [output](const auto& x) {
            const ops::AdamUpdate u =
                ops::adam_update(x[0], x[1], x[2], x[3], x[4], 0.9, 0.999, 1e-7);
            return output == 0 ? u.variable : output == 1 ? u.m : u.v;
          });
  // A seeded draw is the same on both devices; 1001 values end inside a Philox block.
  for (const DType dtype : kFloating)
    add(cases, OpId::random_uniform, dtype,
        {values({7, 143}, dtype, false), from_vector(std::vector<int64_t>{1234567890123, 42}, {2})},
        [dtype](const auto& x) { return ops::random_uniform_like(x[0], x[1], dtype); });
}

void matmul_cases(std::vector<ParityCase>& cases) {
  struct Product {
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<Product> products{
      {{17, 33}, {33, 9}, false, false},       {{33, 17}, {33, 9}, true, false},
      {{17, 33}, {9, 33}, false, true},        {{33, 17}, {9, 33}, true, true},
      {{3, 17, 33}, {3, 33, 9}, false, false}, {{3, 33, 17}, {33, 9}, true, false},
      {{17, 33}, {2, 3, 9, 33}, false, true},  {{1, 17, 33}, {4, 33, 9}, false, false},
  };
  // Products and sums of multiples of 1/4 are exact in float32, so the order of summation does
  // not matter and the results match to the final rounding.
  for (const DType dtype : kFloating)
    for (const Product& p : products)
      add(cases, OpId::matmul, dtype, {values(p.a, dtype, false), values(p.b, dtype, false)},
          [p](const auto& x) { return ops::matmul(x[0], x[1], p.ta, p.tb); });
}

}  // namespace

std::vector<ParityCase> parity_cases() {
  std::vector<ParityCase> cases;
  unary_cases(cases);
  binary_cases(cases);
  other_cases(cases);
  matmul_cases(cases);
  return cases;
}

}  // namespace kiln::testing
