#pragma once
// Keras's weight initializers, by the names Keras uses (glorot_uniform, he_normal, ...). Each
// draws from a kiln::random::Generator, so a seed fixes every weight of a model.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/framework/random/random.h"
#include "kiln/framework/tensor/tensor.h"

namespace kiln::initializers {

class Initializer {
 public:
  virtual ~Initializer() = default;
  virtual Tensor operator()(const Shape& shape, DType dtype, random::Generator& gen) const = 0;
  virtual std::string name() const = 0;  // the Keras class name, e.g. "GlorotUniform"
};

using InitializerPtr = std::shared_ptr<const Initializer>;

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
InitializerPtr variance_scaling(double scale, FanMode mode, Distribution distribution);

InitializerPtr glorot_uniform();
InitializerPtr glorot_normal();
InitializerPtr he_uniform();
InitializerPtr he_normal();
InitializerPtr lecun_uniform();
InitializerPtr lecun_normal();
InitializerPtr zeros();
InitializerPtr ones();
InitializerPtr constant(double value);
InitializerPtr random_normal(double mean = 0.0, double stddev = 0.05);
InitializerPtr random_uniform(double minval = -0.05, double maxval = 0.05);
InitializerPtr truncated_normal(double mean = 0.0, double stddev = 0.05);
// An orthogonal matrix (of the kernel flattened to [prod(shape[:-1]), shape[-1]]) times gain.
InitializerPtr orthogonal(double gain = 1.0);

// By Keras name, snake_case or class name ("glorot_uniform", "GlorotUniform"), with default
// arguments; an unknown name is an error listing the closest known names.
InitializerPtr get(std::string_view name);
std::vector<std::string> known_names();

}  // namespace kiln::initializers
