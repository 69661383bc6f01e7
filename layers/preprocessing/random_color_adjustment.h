#pragma once
// What RandomContrast and RandomBrightness share: a factor range, value_range and a seed; in
// training each image adjusted by a draw of its own and clipped to value_range, at inference the
// identity. Draws come from a seed variable, as Dropout's masks do (one trace, new draws every
// step).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/layers/layer.h"
#include "kiln/layers/random/seed_generator.h"

namespace kiln::layers {

struct RandomColorOptions {
  std::vector<double> value_range = {0, 255};
  std::optional<int64_t> seed = std::nullopt;
  KILN_LAYER_ARGS_FIELDS
};

class RandomColorAdjustment : public Layer {
 public:
  struct Arguments : RandomColorOptions {
    std::pair<double, double> factor;
  };
  std::vector<Tensor> call(const std::vector<Tensor>& inputs, const CallContext& context) override;
  Config get_config() const override;

 protected:
  // factor: [lower, upper], as read_factor gives it within `bounds`.
  RandomColorAdjustment(std::pair<double, double> factor, RandomColorOptions options,
                        std::pair<double, double> bounds, std::string class_name);
  // The images adjusted (before clipping), drawing with `seed`.
  virtual Tensor adjust(const Tensor& images, const Tensor& seed) const = 0;

  static Arguments read_arguments(const Config& config, std::pair<double, double> bounds,
                                  const std::string& class_name);

  std::pair<double, double> factor_;
  RandomColorOptions options_;

 private:
  std::pair<double, double> bounds_;
  std::string class_name_;
  SeedGenerator seed_generator_;
};

}  // namespace kiln::layers
