#include "kiln/layers/initializers/initializers.h"

#include <cmath>
#include <functional>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/named_registry.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::initializers {
namespace {

// The stddev of a unit normal truncated at two standard deviations (Keras's correction).
constexpr double kTruncatedStddev = 0.87962566103423978;

class VarianceScaling : public Initializer {
 public:
  VarianceScaling(double scale, FanMode mode, Distribution distribution, std::string name)
      : scale_(scale), mode_(mode), distribution_(distribution), name_(std::move(name)) {}

  Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const override {
    const Fans fans = compute_fans(shape);
    const double n = mode_ == FanMode::fan_in    ? fans.in
                     : mode_ == FanMode::fan_out ? fans.out
                                                 : (fans.in + fans.out) / 2;
    const double variance = scale_ / std::max(1.0, n);
    switch (distribution_) {
      case Distribution::truncated_normal:
        return random::truncated_normal(shape, 0, std::sqrt(variance) / kTruncatedStddev, dtype,
                                        gen);
      case Distribution::untruncated_normal:
        return random::normal(shape, 0, std::sqrt(variance), dtype, gen);
      case Distribution::uniform:
        break;
    }
    const double limit = std::sqrt(3 * variance);
    return random::uniform(shape, -limit, limit, dtype, gen);
  }
  std::string name() const override { return name_; }

 private:
  double scale_;
  FanMode mode_;
  Distribution distribution_;
  std::string name_;
};

// Initializers that are one call with fixed arguments.
class Simple : public Initializer {
 public:
  using Draw = std::function<Tensor(const Shape&, DType, random::Generator&)>;
  Simple(std::string name, Draw draw) : name_(std::move(name)), draw_(std::move(draw)) {}
  Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const override {
    return draw_(shape, dtype, gen);
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  Draw draw_;
};

InitializerPtr simple(std::string name, Simple::Draw draw) {
  return std::make_shared<Simple>(std::move(name), std::move(draw));
}

// Orthonormal columns of a tall rows x cols matrix (row-major) by modified Gram-Schmidt: the Q
// of its QR decomposition with a positive diagonal in R, as Keras gets from qr() and sign(d).
void orthonormalize_columns(std::vector<double>& a, int64_t rows, int64_t cols) {
  auto at = [&](int64_t r, int64_t c) -> double& { return a[static_cast<size_t>(r * cols + c)]; };
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t k = 0; k < j; ++k) {
      double dot = 0;
      for (int64_t r = 0; r < rows; ++r) dot += at(r, k) * at(r, j);
      for (int64_t r = 0; r < rows; ++r) at(r, j) -= dot * at(r, k);
    }
    double norm = 0;
    for (int64_t r = 0; r < rows; ++r) norm += at(r, j) * at(r, j);
    norm = std::sqrt(norm);
    KILN_CHECK(norm > 0, "orthogonal initializer: a degenerate random draw");
    for (int64_t r = 0; r < rows; ++r) at(r, j) /= norm;
  }
}

Tensor draw_orthogonal(double gain, const Shape& shape, DType dtype, random::Generator& gen) {
  KILN_CHECK(shape.rank() >= 2, "orthogonal initializer needs a shape of rank >= 2, got ", shape);
  const int64_t cols = shape.dim(-1);
  const int64_t rows = shape.numel() / std::max<int64_t>(cols, 1);
  const int64_t tall = std::max(rows, cols);
  const int64_t narrow = std::min(rows, cols);
  std::vector<double> q = random::normal({tall, narrow}, 0, 1, DType::f64, gen).to_vector<double>();
  orthonormalize_columns(q, tall, narrow);
  Tensor out = from_vector(q, {tall, narrow}, DType::f64);
  if (rows < cols) out = ops::transpose(out);
  return ops::cast(ops::reshape(out * gain, shape), dtype).clone();
}

// "GlorotUniform" -> "glorot_uniform".
std::string snake_case(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// Keyed by Keras's snake_case names; class names ("GlorotUniform") fold to them.
const NamedRegistry<std::function<InitializerPtr()>>& registry() {
  static const NamedRegistry<std::function<InitializerPtr()>> r = [] {
    NamedRegistry<std::function<InitializerPtr()>> built("initializer", snake_case);
    built.add("glorot_uniform", glorot_uniform);
    built.add("glorot_normal", glorot_normal);
    built.add("he_uniform", he_uniform);
    built.add("he_normal", he_normal);
    built.add("lecun_uniform", lecun_uniform);
    built.add("lecun_normal", lecun_normal);
    built.add("zeros", zeros);
    built.add("ones", ones);
    built.add("random_normal", [] { return random_normal(); });
    built.add("random_uniform", [] { return random_uniform(); });
    built.add("truncated_normal", [] { return truncated_normal(); });
    built.add("orthogonal", [] { return orthogonal(); });
    built.add("constant", [] { return constant(0); });
    return built;
  }();
  return r;
}

}  // namespace

Fans compute_fans(const Shape& shape) {
  if (shape.rank() == 0) return {1, 1};
  if (shape.rank() == 1) return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
  double receptive = 1;
  for (int i = 0; i + 2 < shape.rank(); ++i) receptive *= static_cast<double>(shape[i]);
  return {static_cast<double>(shape.dim(-2)) * receptive,
          static_cast<double>(shape.dim(-1)) * receptive};
}

InitializerPtr variance_scaling(double scale, FanMode mode, Distribution distribution) {
  return std::make_shared<VarianceScaling>(scale, mode, distribution, "VarianceScaling");
}

InitializerPtr glorot_uniform() {
  return std::make_shared<VarianceScaling>(1.0, FanMode::fan_avg, Distribution::uniform,
                                           "GlorotUniform");
}
InitializerPtr glorot_normal() {
  return std::make_shared<VarianceScaling>(1.0, FanMode::fan_avg, Distribution::truncated_normal,
                                           "GlorotNormal");
}
InitializerPtr he_uniform() {
  return std::make_shared<VarianceScaling>(2.0, FanMode::fan_in, Distribution::uniform,
                                           "HeUniform");
}
InitializerPtr he_normal() {
  return std::make_shared<VarianceScaling>(2.0, FanMode::fan_in, Distribution::truncated_normal,
                                           "HeNormal");
}
InitializerPtr lecun_uniform() {
  return std::make_shared<VarianceScaling>(1.0, FanMode::fan_in, Distribution::uniform,
                                           "LecunUniform");
}
InitializerPtr lecun_normal() {
  return std::make_shared<VarianceScaling>(1.0, FanMode::fan_in, Distribution::truncated_normal,
                                           "LecunNormal");
}

namespace {

// Keras names the constant initializers apart: Zeros, Ones, and Constant(value).
InitializerPtr filled(std::string class_name, double value) {
  return simple(std::move(class_name),
                [value](const Shape& shape, DType dtype, random::Generator&) {
                  return full(shape, value, dtype);
                });
}

}  // namespace

InitializerPtr zeros() {
  return filled("Zeros", 0.0);
}
InitializerPtr ones() {
  return filled("Ones", 1.0);
}
InitializerPtr constant(double value) {
  return filled("Constant", value);
}
InitializerPtr random_normal(double mean, double stddev) {
  return simple("RandomNormal", [=](const Shape& shape, DType dtype, random::Generator& gen) {
    return random::normal(shape, mean, stddev, dtype, gen);
  });
}
InitializerPtr random_uniform(double minval, double maxval) {
  return simple("RandomUniform", [=](const Shape& shape, DType dtype, random::Generator& gen) {
    return random::uniform(shape, minval, maxval, dtype, gen);
  });
}
InitializerPtr truncated_normal(double mean, double stddev) {
  return simple("TruncatedNormal", [=](const Shape& shape, DType dtype, random::Generator& gen) {
    return random::truncated_normal(shape, mean, stddev, dtype, gen);
  });
}
InitializerPtr orthogonal(double gain) {
  return simple("Orthogonal", [gain](const Shape& shape, DType dtype, random::Generator& gen) {
    return draw_orthogonal(gain, shape, dtype, gen);
  });
}

std::vector<std::string> known_names() {
  return registry().names();
}

InitializerPtr get(std::string_view name) {
  return registry().get(name)();
}

}  // namespace kiln::initializers
