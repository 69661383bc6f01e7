#pragma once
// Keras's weight initializers, by the names Keras uses (glorot_uniform, he_normal, ...) and with
// their arguments (RandomNormal's mean and stddev, VarianceScaling's scale, mode and
// distribution, a seed). Each draws from a kiln::random::Generator, so a seed fixes every weight
// of a model; an initializer given its own seed draws the same values at every call, as Keras's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/core/config.h"
#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::initializers {

class Initializer {
 public:
  virtual ~Initializer() = default;
  virtual Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const = 0;
  virtual std::string name() const = 0;  // the Keras class name, e.g. "GlorotUniform"
  // Keras's arguments ({"mean": 0.0, "stddev": 0.02, "seed": null}).
  virtual Config get_config() const = 0;
};

using InitializerPtr = std::shared_ptr<const Initializer>;
using Seed = std::optional<int64_t>;

// fan_in and fan_out as Keras computes them: a kernel [.., in, out] whose leading dims (a
// convolution's window) multiply both.
struct Fans {
  double in;
  double out;
};
Fans compute_fans(const Shape& shape);

// Keras's VarianceScaling: variance scale / n with n = fan_in, fan_out or their mean; a
// truncated normal (stddev corrected for the truncation), an untruncated normal, or a uniform.
enum class FanMode { fan_in, fan_out, fan_avg };
enum class Distribution { truncated_normal, untruncated_normal, uniform };
InitializerPtr variance_scaling(double scale = 1.0, FanMode mode = FanMode::fan_in,
                                Distribution distribution = Distribution::truncated_normal,
                                Seed seed = std::nullopt);

InitializerPtr glorot_uniform(Seed seed = std::nullopt);
InitializerPtr glorot_normal(Seed seed = std::nullopt);
InitializerPtr he_uniform(Seed seed = std::nullopt);
InitializerPtr he_normal(Seed seed = std::nullopt);
InitializerPtr lecun_uniform(Seed seed = std::nullopt);
InitializerPtr lecun_normal(Seed seed = std::nullopt);
InitializerPtr zeros();
InitializerPtr ones();
InitializerPtr constant(double value = 0.0);
InitializerPtr random_normal(double mean = 0.0, double stddev = 0.05, Seed seed = std::nullopt);
InitializerPtr random_uniform(double minval = -0.05, double maxval = 0.05,
                              Seed seed = std::nullopt);
InitializerPtr truncated_normal(double mean = 0.0, double stddev = 0.05, Seed seed = std::nullopt);
// An orthogonal matrix (of the kernel flattened to [prod(shape[:-1]), shape[-1]]) times gain.
InitializerPtr orthogonal(double gain = 1.0, Seed seed = std::nullopt);
// gain times the identity matrix (a 2-D kernel, square or not).
InitializerPtr identity(double gain = 1.0);

// By Keras name, snake_case or class name ("glorot_uniform", "GlorotUniform"), with default
// arguments; an unknown name is an error listing the closest known names.
InitializerPtr get(std::string_view name);
// A name, {RandomNormal: {stddev: 0.02}} or Keras's {"class_name": ..., "config": {...}}; an
// argument the class does not take is refused naming it.
InitializerPtr from_config(const Config& spec);
// Keras's serialized form: {"module": "keras.initializers", "class_name", "config", ...}.
Config serialize(const Initializer& initializer);
std::vector<std::string> known_names();

// An initializer as a layer's options hold one: a name ("he_normal") or an initializer object
// (random_normal(0, 0.02)), so `DenseOptions{.kernel_initializer = "he_normal"}` reads as in
// Keras. Resolved when made: an unknown name fails at the layer's construction.
class InitializerArg {
 public:
  InitializerArg(const char* name);  // NOLINT(google-explicit-constructor): Keras's string form
  InitializerArg(std::string_view name);       // NOLINT(google-explicit-constructor)
  InitializerArg(const std::string& name);     // NOLINT(google-explicit-constructor)
  InitializerArg(InitializerPtr initializer);  // NOLINT(google-explicit-constructor)

  const Initializer& operator*() const { return *initializer_; }
  const InitializerPtr& get() const { return initializer_; }

 private:
  InitializerPtr initializer_;
};

}  // namespace kiln::initializers
