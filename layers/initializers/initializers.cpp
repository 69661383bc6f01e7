#include "kiln/layers/initializers/initializers.h"

#include <cmath>
#include <functional>
#include <utility>

#include "kiln/framework/core/error.h"
#include "kiln/framework/core/keras_object.h"
#include "kiln/framework/ops/ops.h"

namespace kiln::initializers {
namespace {

// The stddev of a unit normal truncated at two standard deviations (Keras's correction).
constexpr double kTruncatedStddev = 0.87962566103423978;

using Draw = std::function<Tensor(const Shape&, DType, random::Generator&)>;

// An initializer as its Keras class name, its arguments and how it draws. One with a seed draws
// from a generator of its own, started afresh at each call: Keras's draws with an int seed are
// stateless, so two weights from one seeded initializer are equal.
class Drawn : public Initializer {
 public:
  Drawn(std::string name, Config config, Draw draw, Seed seed)
      : name_(std::move(name)), config_(std::move(config)), draw_(std::move(draw)), seed_(seed) {}

  Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const override {
    if (!seed_) return draw_(shape, dtype, gen);
    random::Generator own(static_cast<uint64_t>(*seed_));
    return draw_(shape, dtype, own);
  }
  std::string name() const override { return name_; }
  Config get_config() const override { return config_; }

 private:
  std::string name_;
  Config config_;
  Draw draw_;
  Seed seed_;
};

InitializerPtr drawn(std::string name, Config config, Draw draw, Seed seed = std::nullopt) {
  return std::make_shared<Drawn>(std::move(name), std::move(config), std::move(draw), seed);
}

Config seed_config(Seed seed) {
  return seed ? Config(*seed) : Config();
}

Draw variance_scaling_draw(double scale, FanMode mode, Distribution distribution) {
  return [=](const Shape& shape, DType dtype, random::Generator& gen) {
    const Fans fans = compute_fans(shape);
    const double n = mode == FanMode::fan_in    ? fans.in
                     : mode == FanMode::fan_out ? fans.out
                                                : (fans.in + fans.out) / 2;
    const double variance = scale / std::max(1.0, n);
    switch (distribution) {
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
  };
}

// Keras's fixed-argument members of the VarianceScaling family (GlorotUniform, HeNormal, ...),
// whose configs hold only the seed.
InitializerPtr variance_family(std::string name, double scale, FanMode mode,
                               Distribution distribution, Seed seed) {
  return drawn(std::move(name), Config::map().set("seed", seed_config(seed)),
               variance_scaling_draw(scale, mode, distribution), seed);
}

const char* const kFanModes[] = {"fan_in", "fan_out", "fan_avg"};
const char* const kDistributions[] = {"truncated_normal", "untruncated_normal", "uniform"};

template <typename Enum, size_t N>
Enum enum_named(const Config& value, const char* const (&names)[N], const char* key) {
  for (size_t i = 0; i < N; ++i)
    if (value.as_string() == names[i]) return static_cast<Enum>(i);
  std::string known;
  for (const char* name : names) known += (known.empty() ? "" : ", ") + std::string(name);
  throw Error(detail::concat(value.where(), "VarianceScaling: ", key, " must be one of ", known,
                             "; got '", value.as_string(), "'"));
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

Tensor draw_identity(double gain, const Shape& shape, DType dtype) {
  KILN_CHECK(shape.rank() == 2, "identity initializer needs a 2-D shape, got ", shape);
  std::vector<double> values(static_cast<size_t>(shape.numel()), 0.0);
  for (int64_t i = 0; i < std::min(shape[0], shape[1]); ++i)
    values[static_cast<size_t>(i * shape[1] + i)] = gain;
  return ops::cast(from_vector(values, shape, DType::f64), dtype).clone();
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

Seed read_seed(const Config& args) {
  const Config* seed = args.find("seed");
  if (seed == nullptr || seed->is_null()) return std::nullopt;
  return seed->as_int();
}

// Newer Keras writes input_axes and output_axes (fans over chosen axes of an EinsumDense kernel)
// into the VarianceScaling family's configs; kiln computes fans Keras's default way only.
void check_default_axes(const Config& args, std::string_view class_name) {
  for (const char* key : {"input_axes", "output_axes"})
    if (const Config* axes = args.find(key); axes != nullptr)
      KILN_CHECK(axes->is_null(), axes->where(), class_name, ": '", key, "' = ", axes->to_json(),
                 " is not supported by kiln; only null (fans over the last two axes) is");
}

using InitializerKind = ArgumentsFactory<InitializerPtr>;

InitializerKind family(InitializerPtr (*make)(Seed)) {
  return {{"seed", "input_axes", "output_axes"}, [make](const Config& args) {
            check_default_axes(args, make(std::nullopt)->name());
            return make(read_seed(args));
          }};
}

// Keyed by Keras's snake_case names; class names ("GlorotUniform") fold to them, and Keras's
// aliases ("normal", "uniform", "one", "zero") are kept.
const NamedRegistry<InitializerKind>& registry() {
  static const NamedRegistry<InitializerKind> r = [] {
    NamedRegistry<InitializerKind> built("initializer", snake_case);
    built.add("glorot_uniform", family(glorot_uniform));
    built.add("glorot_normal", family(glorot_normal));
    built.add("he_uniform", family(he_uniform));
    built.add("he_normal", family(he_normal));
    built.add("lecun_uniform", family(lecun_uniform));
    built.add("lecun_normal", family(lecun_normal));
    built.add("variance_scaling",
              {{"scale", "mode", "distribution", "seed", "input_axes", "output_axes"},
               [](const Config& args) {
                 check_default_axes(args, "VarianceScaling");
                 const Config* mode = args.find("mode");
                 const Config* distribution = args.find("distribution");
                 return variance_scaling(
                     args.get_double("scale", 1.0),
                     mode ? enum_named<FanMode>(*mode, kFanModes, "mode") : FanMode::fan_in,
                     distribution
                         ? enum_named<Distribution>(*distribution, kDistributions, "distribution")
                         : Distribution::truncated_normal,
                     read_seed(args));
               }});
    built.add("zeros", {{}, [](const Config&) { return zeros(); }}, {"zero"});
    built.add("ones", {{}, [](const Config&) { return ones(); }}, {"one"});
    built.add("constant", {{"value"}, [](const Config& args) {
                             return constant(args.get_double("value", 0));
                           }});
    built.add("random_normal",
              {{"mean", "stddev", "seed"},
               [](const Config& args) {
                 return random_normal(args.get_double("mean", 0), args.get_double("stddev", 0.05),
                                      read_seed(args));
               }},
              {"normal"});
    built.add("random_uniform",
              {{"minval", "maxval", "seed"},
               [](const Config& args) {
                 return random_uniform(args.get_double("minval", -0.05),
                                       args.get_double("maxval", 0.05), read_seed(args));
               }},
              {"uniform"});
    built.add("truncated_normal", {{"mean", "stddev", "seed"}, [](const Config& args) {
                                     return truncated_normal(args.get_double("mean", 0),
                                                             args.get_double("stddev", 0.05),
                                                             read_seed(args));
                                   }});
    built.add("orthogonal",
              {{"gain", "seed"},
               [](const Config& args) {
                 return orthogonal(args.get_double("gain", 1.0), read_seed(args));
               }},
              {"OrthogonalInitializer"});
    built.add("identity",
              {{"gain"}, [](const Config& args) { return identity(args.get_double("gain", 1.0)); }},
              {"IdentityInitializer"});
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

InitializerPtr variance_scaling(double scale, FanMode mode, Distribution distribution, Seed seed) {
  KILN_CHECK(scale > 0, "VarianceScaling: scale must be positive, got ", scale);
  return drawn("VarianceScaling",
               Config::map()
                   .set("scale", scale)
                   .set("mode", kFanModes[static_cast<int>(mode)])
                   .set("distribution", kDistributions[static_cast<int>(distribution)])
                   .set("seed", seed_config(seed)),
               variance_scaling_draw(scale, mode, distribution), seed);
}

InitializerPtr glorot_uniform(Seed seed) {
  return variance_family("GlorotUniform", 1.0, FanMode::fan_avg, Distribution::uniform, seed);
}
InitializerPtr glorot_normal(Seed seed) {
  return variance_family("GlorotNormal", 1.0, FanMode::fan_avg, Distribution::truncated_normal,
                         seed);
}
InitializerPtr he_uniform(Seed seed) {
  return variance_family("HeUniform", 2.0, FanMode::fan_in, Distribution::uniform, seed);
}
InitializerPtr he_normal(Seed seed) {
  return variance_family("HeNormal", 2.0, FanMode::fan_in, Distribution::truncated_normal, seed);
}
InitializerPtr lecun_uniform(Seed seed) {
  return variance_family("LecunUniform", 1.0, FanMode::fan_in, Distribution::uniform, seed);
}
InitializerPtr lecun_normal(Seed seed) {
  return variance_family("LecunNormal", 1.0, FanMode::fan_in, Distribution::truncated_normal, seed);
}

namespace {

// Keras names the constant initializers apart: Zeros, Ones, and Constant(value).
InitializerPtr filled(std::string class_name, Config config, double value) {
  return drawn(std::move(class_name), std::move(config),
               [value](const Shape& shape, DType dtype, random::Generator&) {
                 return full(shape, value, dtype);
               });
}

}  // namespace

InitializerPtr zeros() {
  return filled("Zeros", Config::map(), 0.0);
}
InitializerPtr ones() {
  return filled("Ones", Config::map(), 1.0);
}
InitializerPtr constant(double value) {
  return filled("Constant", Config::map().set("value", value), value);
}
InitializerPtr random_normal(double mean, double stddev, Seed seed) {
  return drawn(
      "RandomNormal",
      Config::map().set("mean", mean).set("stddev", stddev).set("seed", seed_config(seed)),
      [=](const Shape& shape, DType dtype, random::Generator& gen) {
        return random::normal(shape, mean, stddev, dtype, gen);
      },
      seed);
}
InitializerPtr random_uniform(double minval, double maxval, Seed seed) {
  KILN_CHECK(minval <= maxval, "RandomUniform: minval ", minval, " is above maxval ", maxval);
  return drawn(
      "RandomUniform",
      Config::map().set("minval", minval).set("maxval", maxval).set("seed", seed_config(seed)),
      [=](const Shape& shape, DType dtype, random::Generator& gen) {
        return random::uniform(shape, minval, maxval, dtype, gen);
      },
      seed);
}
InitializerPtr truncated_normal(double mean, double stddev, Seed seed) {
  return drawn(
      "TruncatedNormal",
      Config::map().set("mean", mean).set("stddev", stddev).set("seed", seed_config(seed)),
      [=](const Shape& shape, DType dtype, random::Generator& gen) {
        return random::truncated_normal(shape, mean, stddev, dtype, gen);
      },
      seed);
}
InitializerPtr orthogonal(double gain, Seed seed) {
  return drawn(
      "Orthogonal", Config::map().set("gain", gain).set("seed", seed_config(seed)),
      [gain](const Shape& shape, DType dtype, random::Generator& gen) {
        return draw_orthogonal(gain, shape, dtype, gen);
      },
      seed);
}
InitializerPtr identity(double gain) {
  return drawn("IdentityInitializer", Config::map().set("gain", gain),
               [gain](const Shape& shape, DType dtype, random::Generator&) {
                 return draw_identity(gain, shape, dtype);
               });
}

std::vector<std::string> known_names() {
  return registry().names();
}

InitializerPtr get(std::string_view name) {
  return registry().get(name).make(Config::map());
}

InitializerPtr from_config(const Config& spec) {
  return make_keras_object(registry(), spec, "an initializer");
}

Config serialize(const Initializer& initializer) {
  return serialize_keras_object("keras.initializers", initializer.name(), initializer.get_config());
}

InitializerArg::InitializerArg(const char* name) : InitializerArg(std::string_view(name)) {}
InitializerArg::InitializerArg(std::string_view name) : initializer_(initializers::get(name)) {}
InitializerArg::InitializerArg(const std::string& name) : InitializerArg(std::string_view(name)) {}
InitializerArg::InitializerArg(InitializerPtr initializer) : initializer_(std::move(initializer)) {
  KILN_CHECK(initializer_ != nullptr, "an initializer argument must not be null");
}

}  // namespace kiln::initializers
