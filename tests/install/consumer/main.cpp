#include <cstdio>

#include <framework/autodiff/grad.h>
#include <framework/ops/ops.h>

int main() {
  using kiln::Tensor;
  const Tensor x = kiln::tensor({1, 2, 3});
  const auto g = kiln::grad(
      [](const std::vector<Tensor>& p) { return kiln::ops::sum(kiln::ops::square(p[0])); }, {x});
  const auto v = g[0].to_vector<float>();
  std::printf("%g %g %g\n", v[0], v[1], v[2]);
  return v[0] == 2 && v[1] == 4 && v[2] == 6 ? 0 : 1;
}
