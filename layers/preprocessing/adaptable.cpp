#include "kiln/layers/preprocessing/adaptable.h"

namespace kiln::layers {

void Adaptable::adapt(const Tensor& data) {
  bool given = false;
  adapt([&]() -> std::optional<Tensor> {
    if (given) return std::nullopt;
    given = true;
    return data;
  });
}

}  // namespace kiln::layers
